package com.bettercompute.application.cluster;

import com.bettercompute.domain.input.Input;

/** The input of {@code get} and {@code delete}: a tenant and one of its clusters. */
public record ClusterRef(String tenantId, String clusterId) {
    public static ClusterRef from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String clusterId = in.string("clusterId", true, 56, Patterns.CLUSTER_ID);
        in.finish().throwIfInvalid();
        return new ClusterRef(tenantId, clusterId);
    }
}
