package com.bettercompute.adapters.persistence;

class InMemoryAccessRepositoryTest extends AccessRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
