package com.bettercompute.adapters.persistence;

class H2EventOutboxTest extends EventOutboxContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
