package com.bettercompute.application.port;

import com.bettercompute.domain.loadbalancer.HealthCheck;

import java.util.List;

/**
 * External TCP load balancers at the provider (Compute Engine's external passthrough network load balancer): a
 * regional static address, and what forwards it to the cluster's nodes — a regional HTTP health check, a regional
 * backend service of the cluster's instance groups (one unmanaged group per zone, shared by the cluster's load
 * balancers: an instance may belong to one load-balanced group only) and a forwarding rule of the address's TCP
 * ports. Everything of one load balancer carries the same deterministic name
 * ({@link com.bettercompute.domain.loadbalancer.LoadBalancer#providerName}), the groups their cluster's
 * ({@link com.bettercompute.domain.loadbalancer.LoadBalancer#groupName}), so a call after a crash finds what the
 * call before it made instead of making it twice.
 *
 * <p>Every method is idempotent and may make several calls to the provider, each waited for. Failures are
 * {@link ProviderException}s: {@code UNAVAILABLE} for trouble worth retrying, {@code PERMISSION_DENIED},
 * {@code QUOTA} when the project has no address left, {@code INVALID} for a refused request,
 * {@code INTERNAL} otherwise. No library type travels with them.
 */
public interface LoadBalancerProvider {

    /** Where a load balancer lives: its project, its region, its name, and the name of its cluster's instance groups. */
    record At(String project, String region, String name, String group) {
    }

    /**
     * What the forwarding should be.
     *
     * @param ports       the TCP ports the forwarding rule serves, ascending
     * @param instances   the instances behind it ({@code projects/P/zones/Z/instances/N}), sorted; may be empty
     * @param healthCheck the HTTP check the target pool makes on each instance
     */
    record Forwarding(List<Integer> ports, List<String> instances, HealthCheck healthCheck) {
        public Forwarding {
            ports = List.copyOf(ports);
            instances = List.copyOf(instances);
        }
    }

    /**
     * Reserves the regional external static address {@code at}, or finds it when it exists already (made by an
     * earlier call that did not see its answer); returns its IP address once it has one.
     */
    String reserveAddress(At at, String description);

    /**
     * Makes the health check, the backend service and the forwarding rule named {@code at.name()} forward
     * {@code address}'s {@code forwarding.ports()} (TCP) to {@code forwarding.instances()} through the cluster's
     * instance groups {@code at.group()}: creates what is missing, changes what differs (a group's instances are
     * added and removed in place; a rule whose ports changed is made again), leaves what matches. The address is
     * not touched.
     */
    void ensureForwarding(At at, String address, Forwarding forwarding);

    /**
     * Takes the forwarding rule, the backend service and the health check named {@code at.name()} down, then
     * releases the address, then removes the cluster's groups in {@code zones} that no other load balancer uses:
     * what is already gone is a success.
     */
    void release(At at, List<String> zones);

    /**
     * What the provider has under {@code at.name()}: the address's IP (null when none is reserved) and the
     * forwarding that points at it (null when there is no forwarding rule). Empty when there is neither.
     */
    java.util.Optional<Observed> observe(At at);

    /** What {@link #observe} found. */
    record Observed(String address, Forwarding forwarding) {
    }

    /** The provider for each provider account (its project's credentials). */
    @FunctionalInterface
    interface ForAccount {
        LoadBalancerProvider forAccount(com.bettercompute.domain.catalog.ProviderAccount account);
    }
}
