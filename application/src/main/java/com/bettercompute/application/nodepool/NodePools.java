package com.bettercompute.application.nodepool;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.NodePool;

import java.util.Map;

/** What the node pool calls share: finding a pool in its cluster, and the error of a cluster being deleted. */
final class NodePools {

    private NodePools() {}

    static NodePool find(Cluster c, String nodePoolId) {
        return c.nodePools().stream().filter(p -> p.id().equals(nodePoolId)).findFirst()
                .orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND,
                        "No node pool " + nodePoolId + " in cluster " + c.id() + ".", Map.of("nodePoolId", nodePoolId)));
    }

    static DomainException beingDeleted(Cluster c) {
        return new DomainException(ErrorCode.INVALID_STATE,
                "Cluster " + c.id() + " is being deleted; its node pools cannot be changed.",
                Map.of("state", c.state().wire(), "reason", "cluster-deleting"));
    }
}
