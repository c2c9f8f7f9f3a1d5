package com.bettercompute.adapters.persistence;

class InMemoryVolumeStoreTest extends VolumeStoreContract {
    @Override
    protected VolumeStores open() {
        return VolumeStores.inMemory();
    }
}
