package com.bettercompute.adapters.persistence;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A number that moves whenever a commit changes the market, on any replica, read without a query: what the
 * validating webhook checks on every review to know whether its kept facts still hold (it runs on every pod a
 * tenant creates; docs/decisions.md, "The admission webhook's version signal").
 *
 * <p>This replica's own saves move it once they have committed ({@link #committed()}); other replicas' saves
 * move it when their PostgreSQL notification arrives ({@link PostgresChangeListener}), a few milliseconds
 * after their commit. While nothing listens (on PostgreSQL before the listener is in place or after its
 * connection is lost) the number cannot be trusted: {@link #trusted()} is false and the reader goes to the
 * database. H2 belongs to one process, whose saves are all its own: there it is always trusted.
 *
 * <p>The number only grows and is negative, so it never equals a saved version (those are non-negative):
 * a reader that mixes the two never mistakes one for the other.
 */
public final class ChangeSignal {
    private final AtomicLong epoch = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean trusted;

    ChangeSignal(boolean trusted) {
        this.trusted = trusted;
    }

    /** The current number; meaningful only while {@link #trusted()}. */
    long epoch() {
        return epoch.get();
    }

    boolean trusted() {
        return trusted;
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
