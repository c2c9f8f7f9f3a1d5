package com.bettercompute.adapters.persistence;

class H2ClusterRepositoryTest extends ClusterRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
