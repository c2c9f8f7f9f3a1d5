package com.bettercompute.application.nodepool;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What the node pool calls share: finding a pool in its cluster, and the cluster a pool change leaves. */
final class NodePools {

    private NodePools() {}

    static NodePool find(Cluster c, String nodePoolId) {
        return c.nodePools().stream().filter(p -> p.id().equals(nodePoolId)).findFirst()
                .orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND,
                        "No node pool " + nodePoolId + " in cluster " + c.id() + ".", Map.of("nodePoolId", nodePoolId)));
    }

    /**
     * The cluster with {@code pool} put in place of the pool of the same id (or added last), its revision
     * bumped and, when a pool is about to change at the provider, {@code updating}: the cluster reads
     * {@code updating} while any of its pools changes. One not at the provider yet keeps its state.
     */
    static Cluster withPool(Cluster c, NodePool pool, boolean changesProvider, Instant now) {
        List<NodePool> pools = new ArrayList<>();
        boolean replaced = false;
        for (NodePool p : c.nodePools()) {
            if (p.id().equals(pool.id())) {
                pools.add(pool);
                replaced = true;
            } else {
                pools.add(p);
            }
        }
        if (!replaced) {
            pools.add(pool);
        }
        Cluster.Builder b = c.toBuilder().nodePools(pools).version(c.version() + 1).updatedAt(now)
                .progress(c.progress().withNextAttemptAt(null));
        if (changesProvider && (c.state() == ClusterState.READY || c.state() == ClusterState.ERROR)) {
            b.state(ClusterState.UPDATING).message(null);
        }
        return b.build();
    }

    static DomainException beingDeleted(Cluster c) {
        return new DomainException(ErrorCode.INVALID_STATE,
                "Cluster " + c.id() + " is being deleted; its node pools cannot be changed.",
                Map.of("state", c.state().wire(), "reason", "cluster-deleting"));
    }
}
