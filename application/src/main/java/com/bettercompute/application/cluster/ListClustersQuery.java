package com.bettercompute.application.cluster;

import com.bettercompute.domain.input.Input;

/** The input of {@code list}. */
public record ListClustersQuery(String tenantId, String poolId, String projectId, boolean includeDeleted) {
    public static ListClustersQuery from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String poolId = in.string("poolId", false, 57, Patterns.POOL_ID);
        String projectId = in.string("projectId", false, 56, Patterns.PROJECT_ID);
        Boolean includeDeleted = in.bool("includeDeleted", false);
        in.finish().throwIfInvalid();
        return new ListClustersQuery(tenantId, poolId, projectId, includeDeleted);
    }
}
