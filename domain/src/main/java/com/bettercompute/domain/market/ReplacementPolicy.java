package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * Node out of service: a node that health checks cordon stops billing at once and, while its grant
 * is protected, is owed a replacement by its cluster. The next of that cluster's requests in the pool
 * that the market seats takes it at the locked rate for what remains of the window. A node that
 * fails before it was ready has not started its window: it is owed a replacement with a full one.
 * Only health checks owe a replacement: a node the operator removes ends its request instead.
 */
public final class ReplacementPolicy {
    private ReplacementPolicy() {
    }

    /** Whether a grant taken out of service at {@code now} leaves a claim; {@code protectedUntil} null: not ready. */
    public static boolean owed(Instant now, Instant protectedUntil) {
        return protectedUntil == null || now.isBefore(protectedUntil);
    }

    /** Whether an owed claim can still be honoured when a node is granted at {@code now}. */
    public static boolean usable(Instant now, ReplacementClaim claim) {
        return claim.protectedUntil() == null || now.isBefore(claim.protectedUntil());
    }
}
