package com.bettercompute.adapters.persistence;

class InMemoryTenantLockTest extends TenantLockContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
