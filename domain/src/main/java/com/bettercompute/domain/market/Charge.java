package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * One ledger entry: a node grant billed over [from, to). The key is (grant, from), so a replay of
 * the same tick never bills twice.
 */
public record Charge(String grantId, Instant from, Instant to, String tenantId, String clusterId, PoolId pool,
                     String nodeId, Money rate, int gpus, Money amount, boolean locked) {
    public Key key() {
        return new Key(grantId, from);
    }

    /** The idempotency key of a charge. */
    public record Key(String grantId, Instant from) {
    }
}
