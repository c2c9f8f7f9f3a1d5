package com.bettercompute.adapters.persistence;

class PostgresUsageLedgerTest extends UsageLedgerContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
