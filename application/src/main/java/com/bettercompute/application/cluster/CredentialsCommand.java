package com.bettercompute.application.cluster;

import com.bettercompute.domain.input.Input;

/**
 * The input of {@code credentials}.
 *
 * @param ttlSeconds null: the module's {@code credentialTtlSeconds}
 */
public record CredentialsCommand(String tenantId, String clusterId, CredentialRole role, Integer ttlSeconds) {
    public static final int MIN_TTL_SECONDS = 600;
    public static final int MAX_TTL_SECONDS = 86_400;

    public static CredentialsCommand from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String clusterId = in.string("clusterId", true, 56, Patterns.CLUSTER_ID);
        CredentialRole role = in.oneOf("role", false, CredentialRole.BY_WIRE, CredentialRole.VIEW);
        Integer ttl = in.integer("ttlSeconds", false, MIN_TTL_SECONDS, MAX_TTL_SECONDS);
        in.finish().throwIfInvalid();
        return new CredentialsCommand(tenantId, clusterId, role, ttl);
    }

    ClusterRef ref() {
        return new ClusterRef(tenantId, clusterId);
    }
}
