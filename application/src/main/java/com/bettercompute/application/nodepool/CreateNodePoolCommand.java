package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.input.Input;

/**
 * The input of {@code kubernetesNodePools.create}: a cluster, one node pool read with the clusters spec's
 * node pool table ({@link CreateClusterCommand#nodePool}, the same fields and constraints), and an
 * idempotency key. Two commands with the same {@link #fingerprint()} are the same request.
 */
public record CreateNodePoolCommand(String tenantId, String clusterId, NodePoolSpec spec, String idempotencyKey) {

    public static CreateNodePoolCommand from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String clusterId = in.string("clusterId", true, 56, Patterns.CLUSTER_ID);
        String key = in.string("idempotencyKey", true, 128, Patterns.IDEMPOTENCY_KEY);
        // Reads the pool's fields from the body itself and refuses every field nobody read.
        NodePoolSpec spec = CreateClusterCommand.nodePool(in);
        in.throwIfInvalid();
        return new CreateNodePoolCommand(tenantId, clusterId, spec, key);
    }

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
