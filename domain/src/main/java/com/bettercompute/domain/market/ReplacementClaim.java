package com.bettercompute.domain.market;

import java.time.Instant;

/** A replacement a cluster is owed in a pool: the locked rate and what remains of the window. */
public record ReplacementClaim(String clusterId, PoolId pool, Money lockedRate, Instant holdUntil,
                               Instant protectedUntil, String failedNodeId) {
}
