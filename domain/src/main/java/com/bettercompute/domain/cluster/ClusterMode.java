package com.bettercompute.domain.cluster;

/** How the provider runs a cluster's nodes. */
public enum ClusterMode {
    /** The tenant's node pools, created with the cluster. */
    STANDARD,
    /** The provider runs the nodes; the cluster has no node pools of its own. */
    AUTOPILOT;

    /** The wire form, made once (the same in every locale). */
    private final String wire = name().toLowerCase(java.util.Locale.ROOT);

    public String wire() {
        return wire;
    }
}
