package com.bettercompute.application.port;

/** The provider's view of a node pool, as GKE reports it. */
public enum NodePoolStatus {
    PROVISIONING,
    RUNNING,
    RUNNING_WITH_ERROR,
    RECONCILING,
    STOPPING,
    ERROR
}
