package com.bettercompute.adapters.persistence;

class H2VolumeStoreTest extends VolumeStoreContract {
    @Override
    protected VolumeStores open() {
        return VolumeStores.h2();
    }
}
