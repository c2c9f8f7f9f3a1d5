package com.bettercompute.adapters.persistence;

class InMemoryEventOutboxTest extends EventOutboxContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
