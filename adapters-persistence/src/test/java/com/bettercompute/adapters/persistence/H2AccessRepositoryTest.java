package com.bettercompute.adapters.persistence;

class H2AccessRepositoryTest extends AccessRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
