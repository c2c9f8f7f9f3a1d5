package com.bettercompute.adapters.persistence;

class H2TenantLockTest extends TenantLockContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
