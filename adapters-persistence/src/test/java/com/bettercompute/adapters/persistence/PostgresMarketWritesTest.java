package com.bettercompute.adapters.persistence;

class PostgresMarketWritesTest extends JdbiMarketWritesContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
