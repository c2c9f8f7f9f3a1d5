package com.bettercompute.application.cluster;


/**
 * The input of {@code credentials}.
 *
 * @param ttlSeconds null: the module's {@code credentialTtlSeconds}
 */
public record CredentialsCommand(String tenantId, String clusterId, CredentialRole role, Integer ttlSeconds) {
    public static final int MIN_TTL_SECONDS = 600;
    public static final int MAX_TTL_SECONDS = 86_400;

    ClusterRef ref() {
        return new ClusterRef(tenantId, clusterId);
    }
}
