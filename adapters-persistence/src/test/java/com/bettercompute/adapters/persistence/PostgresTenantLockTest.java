package com.bettercompute.adapters.persistence;

class PostgresTenantLockTest extends TenantLockContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
