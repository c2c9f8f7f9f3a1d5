package com.bettercompute.adapters.persistence;

class H2MarketStoreTest extends MarketStoreContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
