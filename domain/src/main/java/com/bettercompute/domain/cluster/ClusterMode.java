package com.bettercompute.domain.cluster;

/** How the provider runs a cluster's nodes. */
public enum ClusterMode {
    /** The tenant's node pools, created with the cluster. */
    STANDARD,
    /** The provider runs the nodes; the cluster has no node pools of its own. */
    AUTOPILOT;

    public String wire() {
        return name().toLowerCase();
    }
}
