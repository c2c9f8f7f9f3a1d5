package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * Instants as epoch nanoseconds, for the fields every tick reads of every grant: comparing and
 * subtracting longs allocates nothing, where {@code Instant} arithmetic allocates at each step.
 * Exact from 1677 to 2262; {@link #NONE} stands for an absent instant.
 */
final class EpochNanos {
    static final long NONE = Long.MIN_VALUE;

    private EpochNanos() {
    }

    static long of(Instant instant) {
        return instant == null ? NONE : ProtectionWindowPolicy.epochNanos(instant);
    }

    static Instant instant(long nanos) {
        return nanos == NONE ? null : Instant.ofEpochSecond(0, nanos);
    }
}
