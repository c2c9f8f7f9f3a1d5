package com.bettercompute.adapters.persistence;

class H2UsageLedgerTest extends UsageLedgerContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
