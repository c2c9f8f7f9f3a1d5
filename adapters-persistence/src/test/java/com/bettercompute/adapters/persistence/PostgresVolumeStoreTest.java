package com.bettercompute.adapters.persistence;

class PostgresVolumeStoreTest extends VolumeStoreContract {
    @Override
    protected VolumeStores open() {
        return VolumeStores.postgres();
    }
}
