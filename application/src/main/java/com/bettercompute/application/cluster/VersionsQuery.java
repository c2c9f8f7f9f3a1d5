package com.bettercompute.application.cluster;

import com.bettercompute.domain.input.Input;

/** The input of {@code versions}. */
public record VersionsQuery(String tenantId, String poolId, String location) {
    public static VersionsQuery from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String poolId = in.string("poolId", true, 57, Patterns.POOL_ID);
        String location = in.string("location", true, 40, Patterns.LOCATION);
        in.finish().throwIfInvalid();
        return new VersionsQuery(tenantId, poolId, location);
    }
}
