package com.bettercompute.domain.market;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** A tenant's Kubernetes cluster as the market sees it: its limit price, max size, block and the replacements owed. */
public final class TenantCluster {
    final String id;
    final Tenant tenant;
    final int slot;
    long maxGpus;
    Money limit;
    long limitMicros;
    /** Whether pods under one node may be packed onto the base load block (checked at admission). */
    boolean packing;
    /** When the cluster-wide limit was last set or withdrawn, null when never. */
    java.time.Instant limitSetAt;
    /** GPUs of its market requests that are filed, admitted or under notice. */
    long usedGpus;
    final Map<PoolId, ArrayDeque<ReplacementClaim>> claims = new HashMap<>();
    /** The ids of the nodes of its base load block. */
    final TreeSet<String> blockNodes = new TreeSet<>();

    TenantCluster(String id, Tenant tenant, int slot, long maxGpus, Money limit) {
        this.id = id;
        this.tenant = tenant;
        this.slot = slot;
        this.maxGpus = maxGpus;
        setLimit(limit);
    }

    void setLimit(Money newLimit) {
        this.limit = newLimit;
        this.limitMicros = newLimit == null ? EffectiveLimitPolicy.NONE : newLimit.micros();
    }

    public String id() {
        return id;
    }

    public String tenantId() {
        return tenant.id;
    }

    public long maxGpus() {
        return maxGpus;
    }

    /** The cluster-wide limit price, null when none is set. */
    public Money limit() {
        return limit;
    }

    /** When the cluster-wide limit was last set or withdrawn; null when never. */
    public java.time.Instant limitSetAt() {
        return limitSetAt;
    }

    public boolean packing() {
        return packing;
    }

    /** The nodes of its base load block, in id order. */
    public List<String> blockNodeIds() {
        return List.copyOf(blockNodes);
    }

    public long usedGpus() {
        return usedGpus;
    }

    /** Replacements owed in a pool. */
    public int claimsOwed(PoolId pool) {
        ArrayDeque<ReplacementClaim> q = claims.get(pool);
        return q == null ? 0 : q.size();
    }
}
