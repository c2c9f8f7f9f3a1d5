package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * Node out of service: a node that health checks cordon stops billing at once and, while its grant
 * is protected, is owed a replacement by its cluster. The next of that cluster's requests in the pool
 * that the market seats takes it at the locked rate for what remains of the window.
 */
public final class ReplacementPolicy {
    private ReplacementPolicy() {
    }

    /** Whether a grant taken out of service at {@code now} leaves a claim. */
    public static boolean owed(Instant now, Instant protectedUntil) {
        return now.isBefore(protectedUntil);
    }

    /** Whether an owed claim can still be honoured when a node is granted at {@code now}. */
    public static boolean usable(Instant now, ReplacementClaim claim) {
        return now.isBefore(claim.protectedUntil());
    }
}
