package com.bettercompute.adapters.persistence;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A number that moves whenever a commit changes one kind of data (the market, the clusters), on any replica,
 * read without a query: what a reader that keeps what it read checks to know whether it still holds — the
 * validating webhook's market facts (it runs on every pod a tenant creates) and the clusters' reads
 * (docs/decisions/persistence-caches.md).
 *
 * <p>This replica's own writes move it once they have committed ({@link #committed()}); other replicas' writes
 * move it when their PostgreSQL notification arrives ({@link PostgresChangeListener}), a few milliseconds
 * after their commit. While nothing listens (on PostgreSQL before the listener is in place or after its
 * connection is lost) the number cannot be trusted: {@link #trusted()} is false and the reader goes to the
 * database. H2 belongs to one process, whose saves are all its own: there it is always trusted.
 *
 * <p>The number only grows and is negative, so it never equals a saved version (those are non-negative):
 * a reader that mixes the two never mistakes one for the other.
 */
public final class ChangeSignal {
    /** What {@link #current()} answers while the number cannot be trusted: never a number it moves through. */
    static final long UNTRUSTED = Long.MAX_VALUE;

    private final AtomicLong epoch = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean trusted;

    ChangeSignal(boolean trusted) {
        this.trusted = trusted;
    }

    boolean trusted() {
        return trusted;
    }

    /**
     * The number, or {@link #UNTRUSTED}. Read before the data it vouches for: a commit after this call moves it
     * past what is returned, so whatever was read meanwhile is never taken for current.
     */
    long current() {
        long now = epoch.get();
        return trusted ? now : UNTRUSTED;
    }

    /** A change committed (by this replica, or another one's notification arrived). */
    void committed() {
        epoch.incrementAndGet();
    }

    /**
     * Whether every commit from now on will move the number. Set true only once listening has begun; the
     * number moves with it, so nothing read while it was not trusted is taken for current.
     */
    void trusted(boolean trusted) {
        epoch.incrementAndGet();
        this.trusted = trusted;
        epoch.incrementAndGet();
    }
}
