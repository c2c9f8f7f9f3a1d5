package com.bettercompute.adapters.persistence;

class PostgresAccessRepositoryTest extends AccessRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
