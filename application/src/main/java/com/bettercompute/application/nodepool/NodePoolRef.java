package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.domain.input.Input;

/** The input of {@code get} and {@code delete}: a tenant, one of its clusters and one of the cluster's node pools. */
public record NodePoolRef(String tenantId, String clusterId, String nodePoolId) {
    public static NodePoolRef from(Object body) {
        Input in = Input.of(body);
        NodePoolRef ref = read(in);
        in.finish().throwIfInvalid();
        return ref;
    }

    static NodePoolRef read(Input in) {
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String clusterId = in.string("clusterId", true, 56, Patterns.CLUSTER_ID);
        String nodePoolId = in.string("nodePoolId", true, 56, Patterns.NODE_POOL_ID);
        return new NodePoolRef(tenantId, clusterId, nodePoolId);
    }

    public ClusterRef cluster() {
        return new ClusterRef(tenantId, clusterId);
    }
}
