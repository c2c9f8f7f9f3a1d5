package com.bettercompute.application.port;

/** The provider's view of a cluster, as GKE reports it. */
public enum ClusterStatus {
    PROVISIONING,
    RUNNING,
    RECONCILING,
    STOPPING,
    ERROR,
    DEGRADED
}
