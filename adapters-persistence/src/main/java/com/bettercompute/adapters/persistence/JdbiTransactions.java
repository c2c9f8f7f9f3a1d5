package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.Transactions;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

import java.util.function.Supplier;

/**
 * {@link Transactions} on Jdbi. The work runs inside {@code jdbi.inTransaction}, which leaves its handle
 * open on the calling thread for the duration: every {@code jdbi.withHandle} the repositories make on
 * that thread gets that same handle, so they all take part in the transaction (a test proves it). Nested
 * calls join the outer transaction. Any exception rolls back and is rethrown as it is; a failure of the
 * database itself (begin, commit) becomes {@code INTERNAL}.
 */
public final class JdbiTransactions implements Transactions {
    /** How deep the calling thread is in {@link #inTransaction} (0: in none). */
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private final Jdbi jdbi;
    private final Db db;
    /** PostgreSQL, whose driver sends held writes in one round trip; H2 runs in the process and holds nothing. */
    private final boolean postgres;

    public JdbiTransactions(Jdbi jdbi, boolean postgres) {
        this.jdbi = jdbi;
        this.db = new Db(jdbi);
        this.postgres = postgres;
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        int[] depth = DEPTH.get();
        depth[0]++;
        try {
            return jdbi.inTransaction(h -> work.get());
        } catch (JdbiException e) {
            throw Db.failure("running a transaction", e);
        } finally {
            depth[0]--;
        }
    }

    /**
     * On PostgreSQL, the batch writes of the repositories ({@code insertAll}, {@code addOwners}, {@code appendAll} of
     * more than one) are held and sent as one text when the work returns: one round trip for all of them, in the
     * order made. A read through a repository meanwhile sends them first. Elsewhere (H2, outside a transaction, or
     * already holding) the work runs as it is.
     */
    @Override
    public <T> T writesTogether(Supplier<T> work) {
        if (!postgres || !active() || Db.together() != null) {
            return work.get();
        }
        return db.holdingWrites("sending a transaction's writes", work);
    }

    /**
     * Whether the calling thread is inside {@link #inTransaction}: its reads must see the transaction's own
     * writes, so nothing kept in memory answers them.
     */
    static boolean active() {
        return DEPTH.get()[0] > 0;
    }
}
