package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.domain.input.Input;

/** The input of {@code list}: a cluster, and whether deleted pools are wanted too. */
public record ListNodePoolsQuery(String tenantId, String clusterId, boolean includeDeleted) {
    public static ListNodePoolsQuery from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String clusterId = in.string("clusterId", true, 56, Patterns.CLUSTER_ID);
        Boolean includeDeleted = in.bool("includeDeleted", false);
        in.finish().throwIfInvalid();
        return new ListNodePoolsQuery(tenantId, clusterId, includeDeleted);
    }

    public ClusterRef cluster() {
        return new ClusterRef(tenantId, clusterId);
    }
}
