package com.bettercompute.domain.loadbalancer;

import java.util.Map;

/**
 * The operator's load balancer settings, from the catalog: the regions where provisioning is enabled (those with a
 * shared address pool) and each pool's limit, and the per-cluster cap (a default, and per tenant).
 *
 * @param defaultClusterCap load balancers a cluster may hold unless its tenant has a cap of its own
 * @param tenantCaps        tenant id → its clusters' cap
 * @param poolLimits        region → how many addresses the platform holds there at most, over every tenant
 */
public record LoadBalancerSettings(int defaultClusterCap, Map<String, Integer> tenantCaps, Map<String, Integer> poolLimits) {
    /** What a catalog without a {@code loadBalancers} section means: provisioning enabled nowhere. */
    public static final LoadBalancerSettings NONE = new LoadBalancerSettings(0, Map.of(), Map.of());
    /** The cap a cluster has when the catalog names none. */
    public static final int DEFAULT_CLUSTER_CAP = 5;

    public LoadBalancerSettings {
        tenantCaps = Map.copyOf(tenantCaps);
        poolLimits = Map.copyOf(poolLimits);
    }

    public boolean regionEnabled(String region) {
        return poolLimits.containsKey(region);
    }

    public int clusterCap(String tenantId) {
        return tenantCaps.getOrDefault(tenantId, defaultClusterCap);
    }

    public int poolLimit(String region) {
        return poolLimits.getOrDefault(region, 0);
    }
}
