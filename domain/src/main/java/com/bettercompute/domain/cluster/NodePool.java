package com.bettercompute.domain.cluster;

import java.time.Instant;

/**
 * A node pool of a cluster: the tenant's spec and where it stands at the provider. {@code version} is the
 * pool's revision (1 at create, +1 on every change). {@code requestFingerprint} identifies the normalized
 * {@code kubernetesNodePools.create} input of a pool added to an existing cluster, so a retry with the same
 * idempotency key can be told from a different request; null for a pool created with its cluster.
 */
public record NodePool(
        String id,
        String clusterId,
        NodePoolSpec spec,
        ClusterState state,
        String message,
        long version,
        Instant createdAt,
        Instant updatedAt,
        String requestFingerprint) {

    /** A pool created with its cluster (no request of its own). */
    public NodePool(String id, String clusterId, NodePoolSpec spec, ClusterState state, String message, long version,
                    Instant createdAt, Instant updatedAt) {
        this(id, clusterId, spec, state, message, version, createdAt, updatedAt, null);
    }

    public NodePool withState(ClusterState newState, String newMessage, Instant now) {
        return new NodePool(id, clusterId, spec, newState, newMessage, version + 1, createdAt, now, requestFingerprint);
    }

    /** The tenant changed the spec: a new revision. */
    public NodePool withSpec(NodePoolSpec newSpec, ClusterState newState, String newMessage, Instant now) {
        return new NodePool(id, clusterId, newSpec, newState, newMessage, version + 1, createdAt, now, requestFingerprint);
    }

    /** Neither deleted nor being deleted: it counts for the name, the quota and the last-pool rule. */
    public boolean live() {
        return state != ClusterState.DELETING && state != ClusterState.DELETED;
    }
}
