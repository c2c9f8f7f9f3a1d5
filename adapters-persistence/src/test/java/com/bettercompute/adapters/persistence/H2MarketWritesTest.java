package com.bettercompute.adapters.persistence;

class H2MarketWritesTest extends JdbiMarketWritesContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
