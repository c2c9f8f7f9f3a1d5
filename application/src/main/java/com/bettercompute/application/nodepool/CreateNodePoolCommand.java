package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;

/**
 * The input of {@code kubernetesNodePools.create}: a cluster, one node pool read with the clusters spec's
 * node pool table (the same fields and constraints as a cluster's {@code nodePools[]}), and an
 * idempotency key. Two commands with the same {@link #fingerprint()} are the same request.
 */
public record CreateNodePoolCommand(String tenantId, String clusterId, NodePoolSpec spec, String idempotencyKey) {

    /** The pool id this request derives, for this caller. */
    public String nodePoolId(String callerId) {
        return Ids.addedNodePoolId(tenantId, callerId, clusterId, idempotencyKey);
    }

    /** A hash of every field but the idempotency key, with defaults applied. */
    public String fingerprint() {
        return Ids.sha256Hex(tenantId.length() + ":" + tenantId + clusterId.length() + ":" + clusterId
                + "|" + CreateClusterCommand.canonical(spec));
    }
}
