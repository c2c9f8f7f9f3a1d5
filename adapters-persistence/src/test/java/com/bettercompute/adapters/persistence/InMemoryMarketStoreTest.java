package com.bettercompute.adapters.persistence;

class InMemoryMarketStoreTest extends MarketStoreContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
