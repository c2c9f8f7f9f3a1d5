package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * A node given to a cluster for a request: granted at, locked rate, minimum hold and protection
 * window. The hold and the window start when the node is ready in the cluster (a replacement keeps
 * what remains of the window it replaces), and billing starts then too. When its job ends the grant
 * stays with the cluster as an idle node until released.
 */
public final class NodeGrant {
    final String id;
    final String nodeId;
    final PoolId pool;
    final TenantCluster cluster;
    final int gpus;
    final Money lockedRate;
    final Instant grantedAt;
    /** When the node was ready in the cluster; null until then. */
    Instant readyAt;
    /** Null until the node is ready (a replacement's come from its claim and may be set at grant). */
    private Instant holdUntil;
    private Instant protectedUntil;
    /** {@link #protectedUntil} in epoch nanoseconds; {@link Long#MAX_VALUE} while not anchored. */
    long protectedUntilNanos;
    final boolean replacement;
    /** The gang of the request it serves; null once idle. */
    Gang gang;
    Instant idleSince;
    /**
     * The rate after the window and whether the locked rate is in force, for a grant with no request
     * (idle, or ended). A grant serving a request reads its gang's.
     */
    long marketRate;
    boolean lockedInForce = true;
    /** Billed up to here, in epoch nanoseconds; {@link EpochNanos#NONE} until the node is ready. */
    long billedUntil = EpochNanos.NONE;
    /**
     * What billing owes below one micro-dollar, in {@link BillingPolicy#UNITS_PER_MICRO}ths, carried
     * into the next accrual so rounding never accumulates.
     */
    long carry;
    /**
     * The open ledger entry: its start in epoch nanoseconds ({@link EpochNanos#NONE} when none), rate,
     * whether locked, and what it accrued.
     */
    long entryFrom = EpochNanos.NONE;
    long entryRate;
    boolean entryLocked;
    long entryAccrued;
    /** When billing stops; null while the grant lives. */
    Instant endsAt;

    NodeGrant(String id, String nodeId, PoolId pool, TenantCluster cluster, int gpus, Money lockedRate,
              Instant grantedAt, Instant holdUntil, Instant protectedUntil, boolean replacement) {
        this.id = id;
        this.nodeId = nodeId;
        this.pool = pool;
        this.cluster = cluster;
        this.gpus = gpus;
        this.lockedRate = lockedRate;
        this.grantedAt = grantedAt;
        anchor(holdUntil, protectedUntil);
        this.replacement = replacement;
        this.marketRate = lockedRate.micros();
    }

    /** Sets the minimum hold and the protection window (null while the node is not ready). */
    void anchor(Instant holdUntil, Instant protectedUntil) {
        this.holdUntil = holdUntil;
        this.protectedUntil = protectedUntil;
        this.protectedUntilNanos = protectedUntil == null ? Long.MAX_VALUE : EpochNanos.of(protectedUntil);
    }

    boolean ready() {
        return readyAt != null;
    }

    long currentMarketRate() {
        return gang != null ? gang.marketRate : marketRate;
    }

    boolean currentLockedInForce() {
        return gang != null ? gang.lockedInForce : lockedInForce;
    }

    /** Leaves its gang, keeping the rates in force at that moment. */
    void detach() {
        if (gang != null) {
            marketRate = gang.marketRate;
            lockedInForce = gang.lockedInForce;
            gang = null;
        }
    }

    public String id() {
        return id;
    }

    public String nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return cluster.id;
    }

    public String requestId() {
        return gang == null ? null : gang.requestId;
    }

    public Money lockedRate() {
        return lockedRate;
    }

    public Instant grantedAt() {
        return grantedAt;
    }

    /** When the node was ready in the cluster, null until then. */
    public Instant readyAt() {
        return readyAt;
    }

    /** The end of the minimum hold, null until the node is ready. */
    public Instant holdUntil() {
        return holdUntil;
    }

    /** The end of the protection window, null until the node is ready. */
    public Instant protectedUntil() {
        return protectedUntil;
    }

    /** When billing stopped (the grant ended: released, reclaimed, or its node taken out of service); null while it lives. */
    public Instant endsAt() {
        return endsAt;
    }

    public boolean replacement() {
        return replacement;
    }

    public boolean idle() {
        return gang == null;
    }
}
