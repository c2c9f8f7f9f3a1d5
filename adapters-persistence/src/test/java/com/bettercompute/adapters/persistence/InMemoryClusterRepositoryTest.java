package com.bettercompute.adapters.persistence;

class InMemoryClusterRepositoryTest extends ClusterRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
