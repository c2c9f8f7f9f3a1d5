package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.ClusterRef;

/** The input of {@code get} and {@code delete}: a tenant, one of its clusters and one of the cluster's node pools. */
public record NodePoolRef(String tenantId, String clusterId, String nodePoolId) {
    public ClusterRef cluster() {
        return new ClusterRef(tenantId, clusterId);
    }
}
