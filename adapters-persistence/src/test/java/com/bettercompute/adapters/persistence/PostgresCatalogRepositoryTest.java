package com.bettercompute.adapters.persistence;

class PostgresCatalogRepositoryTest extends CatalogRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.postgres();
    }
}
