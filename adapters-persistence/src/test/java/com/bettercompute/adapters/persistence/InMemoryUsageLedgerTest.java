package com.bettercompute.adapters.persistence;

class InMemoryUsageLedgerTest extends UsageLedgerContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
