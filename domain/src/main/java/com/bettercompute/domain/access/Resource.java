package com.bettercompute.domain.access;

import java.util.Map;

/**
 * What a decision is about: a tenant ({@code compute-tenant}) or a cluster under it
 * ({@code compute-kubernetes-cluster}, whose attributes are {@code providerAccountId}, {@code poolId},
 * {@code projectId}, {@code mode} and {@code location}). A cluster that does not exist yet, or is not
 * found, has its id and only the attributes known.
 */
public record Resource(String type, String tenantId, String clusterId, Map<String, String> attributes) {
    public static final String TENANT = "compute-tenant";
    public static final String CLUSTER = "compute-kubernetes-cluster";

    public Resource {
        attributes = Map.copyOf(attributes);
    }

    public static Resource tenant(String tenantId) {
        return new Resource(TENANT, tenantId, null, Map.of());
    }

    public static Resource cluster(String tenantId, String clusterId, Map<String, String> attributes) {
        return new Resource(CLUSTER, tenantId, clusterId, attributes);
    }
}
