package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.ClusterRef;

/** The input of {@code list}: a cluster, and whether deleted pools are wanted too. */
public record ListNodePoolsQuery(String tenantId, String clusterId, boolean includeDeleted) {
    public ClusterRef cluster() {
        return new ClusterRef(tenantId, clusterId);
    }
}
