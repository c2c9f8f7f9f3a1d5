package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.InMemoryStorageLedger;
import com.bettercompute.application.fakes.InMemoryStore;
import com.bettercompute.application.fakes.InMemoryTransactions;
import com.bettercompute.application.fakes.InMemoryVolumeRepository;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.VolumeRepository;

import java.util.UUID;

/** The shared volumes' stores on one backend (the fakes, H2 in memory or PostgreSQL), emptied between tests. */
record VolumeStores(String backend, Transactions transactions, VolumeRepository volumes, StorageLedger ledger, Runnable wipe,
                    Runnable closer) implements AutoCloseable {

    static VolumeStores inMemory() {
        InMemoryStore store = new InMemoryStore();
        return new VolumeStores("in-memory", new InMemoryTransactions(store), new InMemoryVolumeRepository(store),
                new InMemoryStorageLedger(store), store::clear, () -> {});
    }

    static VolumeStores h2() {
        return jdbi("h2", Database.open("jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", "")), () -> {});
    }

    static VolumeStores postgres() {
        TestPostgres.Db db = TestPostgres.newDatabase();
        return jdbi("postgresql", Database.open(db.url(), db.user(), db.password()), () -> TestPostgres.drop(db));
    }

    private static VolumeStores jdbi(String name, Database db, Runnable drop) {
        return new VolumeStores(name, db.transactions(), db.volumes(), db.storageLedger(),
                () -> db.jdbi().useHandle(h -> {
                    h.execute("DELETE FROM storage_charges");
                    h.execute("DELETE FROM shared_volumes");
                }),
                () -> {
                    db.close();
                    drop.run();
                });
    }

    @Override
    public void close() {
        closer.run();
    }

    @Override
    public String toString() {
        return backend;
    }
}
