package com.bettercompute.domain.market;

import java.time.Instant;

/** A GPU node of a pool: in service or not, in a base load block or on the market, granted or free. */
public final class Node {
    final String id;
    final PoolId pool;
    boolean inService = true;
    /** The cluster whose base load block holds this node, null for a market node. */
    TenantCluster block;
    /** The live grant on this node, null when free. */
    NodeGrant grant;
    /** The grant the node had when health checks took it out of service. */
    NodeGrant lostGrant;
    /** GPUs of block nodes taken by seated sub-node requests. */
    int seatedGpus;
    /**
     * Until when the node drains after a reclaim at once: its pods get the eviction grace, so it is
     * neither supply nor grantable before then. Null when not draining.
     */
    Instant drainingUntil;
    /**
     * When this block node was reported ready in its cluster; null while it has not joined (or left). Only a
     * live block node (in service and ready) seats sub-node requests.
     */
    Instant blockReadyAt;

    Node(String id, PoolId pool) {
        this.id = id;
        this.pool = pool;
    }

    public String id() {
        return id;
    }

    public PoolId pool() {
        return pool;
    }

    public boolean inService() {
        return inService;
    }

    public String blockClusterId() {
        return block == null ? null : block.id;
    }

    public NodeGrant grant() {
        return grant;
    }

    /** The grant the node had when health checks took it out of service, null when it has none. */
    public NodeGrant lostGrant() {
        return lostGrant;
    }

    /** When this block node was reported ready in its cluster, null while it is not there. */
    public Instant blockReadyAt() {
        return blockReadyAt;
    }

    /** Whether this is a block node that seats sub-node requests now: in service and ready in its cluster. */
    public boolean liveBlockNode() {
        return block != null && inService && blockReadyAt != null;
    }

    /** Until when the node drains after a reclaim at once, null when it does not. */
    public Instant drainingUntil() {
        return drainingUntil;
    }
}
