package com.bettercompute.domain.loadbalancer;

/** Where a Service's load balancer stands at the platform. */
public enum LoadBalancerState {
    /** Refused for now (the row says why); holds nothing at the provider. */
    PENDING,
    /** Room was taken for it; its address is being reserved (it may exist at the provider already). */
    RESERVING,
    /** It holds its address; its forwarding is made to match the Service. */
    SERVING,
    /** Its provider side is being taken down; the address is held until that is done. */
    RELEASING;

    /** Whether it counts against the cluster's cap and the region's pool: it may hold an address. */
    public boolean holds() {
        return this != PENDING;
    }
}
