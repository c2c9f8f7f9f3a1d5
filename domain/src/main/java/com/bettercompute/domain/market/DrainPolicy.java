package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * A node whose gang lost it while its pods ran (reclaimed at once, or its gang revoked because
 * another of its nodes left) drains: its pods get the eviction grace, and until that has passed the
 * node is not supply and cannot be granted, so two tenants' work never overlaps on one node. A node
 * whose pods already had their grace (a notice that ran out) or had none (an idle node) is free at once.
 */
public final class DrainPolicy {
    private DrainPolicy() {
    }

    /** Until when a node released at {@code at} drains; null when it is free at once. */
    public static Instant drainsUntil(Instant at, boolean podsRunning, MarketTimings timings) {
        return podsRunning ? at.plus(timings.evictionGrace()) : null;
    }

    /** Whether a node draining until {@code until} is back in supply at {@code now}. */
    public static boolean drained(Instant now, Instant until) {
        return !now.isBefore(until);
    }
}
