package com.bettercompute.adapters.persistence;

class InMemoryInClusterLeasesTest extends InClusterLeasesContract {
    @Override
    protected Stores open() {
        return Stores.inMemory();
    }
}
