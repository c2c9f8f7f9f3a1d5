package com.bettercompute.application.port;

import java.util.function.Supplier;

/**
 * Runs work in one database transaction. Repositories called inside it take part in it; an exception
 * rolls everything back, so a refused call leaves nothing behind. Nested calls join the outer one.
 */
public interface Transactions {
    <T> T inTransaction(Supplier<T> work);

    /**
     * Runs writes the work does not read back before it returns, inside {@link #inTransaction}: an adapter may hold
     * them and send them together when the work returns (a group of creates is bound by its round trips). A write
     * refused then (a {@code CONFLICT} of a batch insert) is thrown by this call, and the transaction must roll back.
     * Reads made meanwhile still see the writes made before them.
     */
    default <T> T writesTogether(Supplier<T> work) {
        return work.get();
    }
}
