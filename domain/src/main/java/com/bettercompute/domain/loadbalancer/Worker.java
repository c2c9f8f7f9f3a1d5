package com.bettercompute.domain.loadbalancer;

/**
 * A node of a tenant cluster as a load balancer backend.
 *
 * @param node        its name
 * @param instance    the provider's instance behind it ({@code projects/P/zones/Z/instances/N} on GKE)
 * @param ready       its {@code Ready} condition is {@code True}
 * @param underNotice the market reclaims it: it carries the notice taint
 * @param excluded    it is labelled {@code node.kubernetes.io/exclude-from-external-load-balancers}, or is being
 *                    removed ({@code ToBeDeletedByClusterAutoscaler})
 */
public record Worker(String node, String instance, boolean ready, boolean underNotice, boolean excluded) {
}
