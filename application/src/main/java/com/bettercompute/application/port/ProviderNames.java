package com.bettercompute.application.port;

/** How better-compute names and marks what it creates at the provider. */
public final class ProviderNames {
    /** The resource label every cluster we create carries, its value our cluster id. */
    public static final String CLUSTER_LABEL = "better-compute-cluster";
    /** The prefix of a provider-side cluster name. */
    public static final String CLUSTER_PREFIX = "bc-k-";

    private ProviderNames() {
    }

    /**
     * The provider-side name of a cluster: {@code bc-k-} and the first 24 characters of the id after
     * its {@code kcl_} prefix (29 characters, within GKE's 40). Deterministic, so a retry after a
     * crash finds the cluster it created before.
     */
    public static String clusterName(String clusterId) {
        String body = clusterId.startsWith("kcl_") ? clusterId.substring(4) : clusterId;
        if (body.length() < 24) {
            throw new IllegalArgumentException("a cluster id has at least 24 characters after kcl_: " + clusterId);
        }
        return CLUSTER_PREFIX + body.substring(0, 24);
    }
}
