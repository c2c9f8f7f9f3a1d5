package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * Minimum hold and idle grace: a granted node stays (and bills) until its hold ends, and a node whose
 * job ended returns to supply after the idle grace, whichever is later. A node that was never ready
 * has no hold yet: only the grace keeps it.
 */
public final class IdleGracePolicy {
    private IdleGracePolicy() {
    }

    /** @param holdUntil the end of the minimum hold, null when the node is not ready yet */
    public static Instant releaseAt(Instant holdUntil, Instant idleSince, MarketTimings timings) {
        Instant graceEnd = idleSince.plus(timings.idleGrace());
        return holdUntil == null || graceEnd.isAfter(holdUntil) ? graceEnd : holdUntil;
    }
}
