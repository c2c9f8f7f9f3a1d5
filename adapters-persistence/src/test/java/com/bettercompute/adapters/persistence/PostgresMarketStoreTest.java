package com.bettercompute.adapters.persistence;

class PostgresMarketStoreTest extends MarketStoreContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
