package com.bettercompute.domain.loadbalancer;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A Service's load balancer as the platform keeps it: one per (cluster, Service uid), written before any provider
 * call, removed only after its address is released — so an address never exists at the provider without the row
 * that will release it, and a Service never gets two.
 *
 * @param clusterId    the tenant cluster
 * @param tenantId     its tenant
 * @param namespace    the Service's namespace
 * @param service      the Service's name
 * @param serviceUid   the Service's uid
 * @param project      the provider project the address lives in (the cluster's)
 * @param region       the region of the address (the cluster's)
 * @param providerName the provider-side name of the address and of everything that forwards to it
 *                     ({@link #providerName(String, String)})
 * @param state        where it stands
 * @param address      the reserved IP address, null until known
 * @param ports        the TCP ports its forwarding serves, empty until programmed
 * @param backends     the instances its forwarding targets, as last programmed
 * @param healthCheck  the check last programmed, null until programmed
 * @param refusal      why it is {@link LoadBalancerState#PENDING}, else null
 * @param refusalText  the refusal's sentence, else null
 * @param createdAt    when the platform first saw it
 * @param updatedAt    when the row last changed
 * @param version      the row's revision, for conditional updates
 */
public record LoadBalancer(String clusterId, String tenantId, String namespace, String service, String serviceUid, String project,
                           String region, String providerName, LoadBalancerState state, String address, List<Integer> ports,
                           List<String> backends, HealthCheck healthCheck, RefusalReason refusal, String refusalText,
                           Instant createdAt, Instant updatedAt, long version) {
    public static final String PROVIDER_NAME_PREFIX = "bc-lb-";

    public LoadBalancer {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(serviceUid, "serviceUid");
        Objects.requireNonNull(state, "state");
        ports = List.copyOf(ports);
        backends = List.copyOf(backends);
    }

    /** A new row for a Service seen for the first time, in {@code state}. */
    public static LoadBalancer first(String clusterId, String tenantId, LoadBalancerService s, String project, String region,
                                     LoadBalancerState state, Refusal refusal, Instant now) {
        return new LoadBalancer(clusterId, tenantId, s.namespace(), s.name(), s.uid(), project, region,
                providerName(clusterId, s.uid()), state, null, List.of(), List.of(), null,
                refusal == null ? null : refusal.reason(), refusal == null ? null : refusal.message(), now, now, 0);
    }

    /**
     * {@code bc-lb-} and 24 characters of a hash of (cluster, Service uid): a valid Compute Engine name, known
     * before the provider is called, so a pass after a crash adopts what the pass before it reserved.
     */
    public static String providerName(String clusterId, String serviceUid) {
        return PROVIDER_NAME_PREFIX + com.bettercompute.domain.cluster.Ids.hashed("load-balancer", 24, clusterId, serviceUid);
    }

    /**
     * {@code bc-lbg-} and 24 characters of a hash of the cluster: the name of the cluster's instance group in each
     * zone, shared by its load balancers.
     */
    public static String groupName(String clusterId) {
        return "bc-lbg-" + com.bettercompute.domain.cluster.Ids.hashed("load-balancer-group", 24, clusterId);
    }

    /** The zones of its backends ({@code projects/P/zones/Z/instances/N}), sorted, each once. */
    public List<String> zones() {
        return backends.stream().map(b -> b.split("/")).filter(p -> p.length >= 4 && p[2].equals("zones")).map(p -> p[3])
                .distinct().sorted().toList();
    }

    public LoadBalancer pending(Refusal r, Instant now) {
        return new LoadBalancer(clusterId, tenantId, namespace, service, serviceUid, project, region, providerName,
                LoadBalancerState.PENDING, null, List.of(), List.of(), null, r.reason(), r.message(), createdAt, now, version);
    }

    public LoadBalancer reserving(Instant now) {
        return new LoadBalancer(clusterId, tenantId, namespace, service, serviceUid, project, region, providerName,
                LoadBalancerState.RESERVING, null, List.of(), List.of(), null, null, null, createdAt, now, version);
    }

    public LoadBalancer serving(String ip, Instant now) {
        return new LoadBalancer(clusterId, tenantId, namespace, service, serviceUid, project, region, providerName,
                LoadBalancerState.SERVING, ip, ports, backends, healthCheck, null, null, createdAt, now, version);
    }

    public LoadBalancer programmed(List<Integer> servedPorts, List<String> servedBackends, HealthCheck check, Instant now) {
        return new LoadBalancer(clusterId, tenantId, namespace, service, serviceUid, project, region, providerName,
                state, address, servedPorts, servedBackends, check, null, null, createdAt, now, version);
    }

    public LoadBalancer releasing(Instant now) {
        return new LoadBalancer(clusterId, tenantId, namespace, service, serviceUid, project, region, providerName,
                LoadBalancerState.RELEASING, address, ports, backends, healthCheck, null, null, createdAt, now, version);
    }

    public LoadBalancer withVersion(long v) {
        return new LoadBalancer(clusterId, tenantId, namespace, service, serviceUid, project, region, providerName,
                state, address, ports, backends, healthCheck, refusal, refusalText, createdAt, updatedAt, v);
    }

    /** Whether its forwarding is what {@code serve} asks for. */
    public boolean programmedAs(ServingPolicy.Serve serve) {
        return healthCheck != null && ports.equals(serve.portNumbers()) && backends.equals(serve.backends())
                && healthCheck.equals(serve.healthCheck());
    }
}
