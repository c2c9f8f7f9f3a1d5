package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * Minimum hold and idle grace: a granted node stays (and bills) until its hold ends, and a node whose
 * job ended returns to supply after the idle grace, whichever is later.
 */
public final class IdleGracePolicy {
    private IdleGracePolicy() {
    }

    public static Instant releaseAt(Instant holdUntil, Instant idleSince, MarketTimings timings) {
        Instant graceEnd = idleSince.plus(timings.idleGrace());
        return graceEnd.isAfter(holdUntil) ? graceEnd : holdUntil;
    }
}
