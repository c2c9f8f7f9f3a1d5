package com.bettercompute.application.port;

import java.util.function.Supplier;

/**
 * Runs work in one database transaction. Repositories called inside it take part in it; an exception
 * rolls everything back, so a refused call leaves nothing behind. Nested calls join the outer one.
 */
public interface Transactions {
    <T> T inTransaction(Supplier<T> work);
}
