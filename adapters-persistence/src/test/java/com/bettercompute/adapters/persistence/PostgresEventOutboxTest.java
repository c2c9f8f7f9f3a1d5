package com.bettercompute.adapters.persistence;

class PostgresEventOutboxTest extends EventOutboxContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
