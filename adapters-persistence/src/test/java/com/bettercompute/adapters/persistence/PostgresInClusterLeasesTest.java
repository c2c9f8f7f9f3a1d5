package com.bettercompute.adapters.persistence;

class PostgresInClusterLeasesTest extends InClusterLeasesContract {
    @Override
    protected Stores open() {
        return Stores.postgres();
    }
}
