package com.bettercompute.domain.cluster;

import java.time.Instant;

/** A node pool of a cluster: the tenant's spec and where it stands at the provider. */
public record NodePool(
        String id,
        String clusterId,
        NodePoolSpec spec,
        ClusterState state,
        String message,
        long version,
        Instant createdAt,
        Instant updatedAt) {

    public NodePool withState(ClusterState newState, String newMessage, Instant now) {
        return new NodePool(id, clusterId, spec, newState, newMessage, version + 1, createdAt, now);
    }
}
