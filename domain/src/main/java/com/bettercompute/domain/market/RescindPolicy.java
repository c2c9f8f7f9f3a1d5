package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * A reclaim with notice is rescinded when a later tick within the notice accepts the gang again (a
 * higher limit, or the demand went away). At the deadline it is final.
 */
public final class RescindPolicy {
    private RescindPolicy() {
    }

    public static boolean rescinds(boolean acceptedAgain, Instant now, Instant deadline) {
        return acceptedAgain && now.isBefore(deadline);
    }

    /** Whether the notice ran out: the gang is revoked and its job requeues. */
    public static boolean expired(Instant now, Instant deadline) {
        return !now.isBefore(deadline);
    }
}
