package com.bettercompute.adapters.persistence;

class InMemoryCatalogRepositoryTest extends CatalogRepositoryContract {
    @Override
    protected Ports open() {
        return Backends.inMemory();
    }
}
