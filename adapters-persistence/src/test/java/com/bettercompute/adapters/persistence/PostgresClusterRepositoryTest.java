package com.bettercompute.adapters.persistence;

class PostgresClusterRepositoryTest extends ClusterRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
