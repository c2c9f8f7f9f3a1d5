package com.bettercompute.adapters.persistence;

class H2ClusterGroupWritesTest extends ClusterGroupWritesContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
