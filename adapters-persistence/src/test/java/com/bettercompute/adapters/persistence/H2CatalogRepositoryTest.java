package com.bettercompute.adapters.persistence;

class H2CatalogRepositoryTest extends CatalogRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.h2();
    }
}
