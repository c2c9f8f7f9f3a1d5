package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * A node given to a cluster for a request: granted at, locked rate, minimum hold and protection
 * window. When its job ends the grant stays with the cluster as an idle node until released.
 */
public final class NodeGrant {
    final String id;
    final Node node;
    final TenantCluster cluster;
    final int gpus;
    final Money lockedRate;
    final Instant grantedAt;
    final Instant holdUntil;
    final Instant protectedUntil;
    final boolean replacement;
    /** The request it serves; null once idle. */
    MarketRequest request;
    Instant idleSince;
    /** The rate after the window, decided at the last tick (micro-dollars per GPU-hour). */
    long marketRate;
    /** Whether the locked rate is in force for the interval after the last tick (window not void). */
    boolean lockedInForce = true;
    Instant billedUntil;
    /** When billing stops; null while the grant lives. */
    Instant endsAt;

    NodeGrant(String id, Node node, TenantCluster cluster, int gpus, Money lockedRate, Instant grantedAt,
              Instant holdUntil, Instant protectedUntil, boolean replacement) {
        this.id = id;
        this.node = node;
        this.cluster = cluster;
        this.gpus = gpus;
        this.lockedRate = lockedRate;
        this.grantedAt = grantedAt;
        this.holdUntil = holdUntil;
        this.protectedUntil = protectedUntil;
        this.replacement = replacement;
        this.marketRate = lockedRate.micros();
        this.billedUntil = grantedAt;
    }

    public String id() {
        return id;
    }

    public String nodeId() {
        return node.id;
    }

    public String clusterId() {
        return cluster.id;
    }

    public String requestId() {
        return request == null ? null : request.id;
    }

    public Money lockedRate() {
        return lockedRate;
    }

    public Instant grantedAt() {
        return grantedAt;
    }

    public Instant holdUntil() {
        return holdUntil;
    }

    public Instant protectedUntil() {
        return protectedUntil;
    }

    public boolean replacement() {
        return replacement;
    }

    public boolean idle() {
        return request == null;
    }
}
