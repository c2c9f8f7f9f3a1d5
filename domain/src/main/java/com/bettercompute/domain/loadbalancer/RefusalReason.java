package com.bettercompute.domain.loadbalancer;

/** Why a LoadBalancer Service stays {@code <pending>}; {@link #wire()} is how Events, metrics and the API name it. */
public enum RefusalReason {
    /** Provisioning is not enabled in the cluster's region. */
    REGION_NOT_ENABLED("region-not-enabled"),
    /** None of its ports is TCP. */
    UNSUPPORTED_PROTOCOL("unsupported-protocol"),
    /** A TCP port has no NodePort ({@code allocateLoadBalancerNodePorts: false}, or none allocated yet). */
    NO_NODE_PORT("no-node-port"),
    /** The cluster has no Ready worker to back it. */
    NO_READY_WORKERS("no-ready-workers"),
    /** The cluster holds as many load balancers as its cap allows. */
    CLUSTER_CAP("cluster-cap"),
    /** The region's shared address pool is at its limit. */
    POOL_LIMIT("pool-limit");

    private final String wire;

    RefusalReason(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** Whether room freeing elsewhere ends it (a cap or the pool), rather than a change to the Service or its cluster. */
    public boolean limit() {
        return this == CLUSTER_CAP || this == POOL_LIMIT;
    }
}
