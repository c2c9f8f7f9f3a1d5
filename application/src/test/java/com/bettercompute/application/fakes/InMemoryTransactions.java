package com.bettercompute.application.fakes;

import com.bettercompute.application.port.Transactions;

import java.util.function.Supplier;

/**
 * Runs the work under the store's lock (so transactions are serialized, and {@code lockTenant} is exact);
 * an exception restores everything the work changed in every fake of the same store. Nested calls join.
 */
public final class InMemoryTransactions implements Transactions {
    private final InMemoryStore store;

    public InMemoryTransactions(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return store.transaction(work);
    }
}
