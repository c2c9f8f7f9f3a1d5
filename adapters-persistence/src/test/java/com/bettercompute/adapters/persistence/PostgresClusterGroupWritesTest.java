package com.bettercompute.adapters.persistence;

class PostgresClusterGroupWritesTest extends ClusterGroupWritesContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
