package com.bettercompute.adapters.persistence;

class H2InClusterLeasesTest extends InClusterLeasesContract {
    @Override
    protected Stores open() {
        return Stores.h2();
    }
}
