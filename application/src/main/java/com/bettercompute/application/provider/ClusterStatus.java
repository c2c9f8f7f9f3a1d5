package com.bettercompute.application.provider;

/** The provider's view of a cluster, as GKE reports it. */
public enum ClusterStatus {
    PROVISIONING,
    RUNNING,
    RECONCILING,
    STOPPING,
    ERROR,
    DEGRADED
}
