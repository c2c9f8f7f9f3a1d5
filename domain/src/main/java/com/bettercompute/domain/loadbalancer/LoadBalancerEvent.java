package com.bettercompute.domain.loadbalancer;

import com.bettercompute.domain.event.DomainEvent;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What happened to a Service's load balancer, for the outbox: every event carries the load balancer as it was
 * saved with it; {@link #type()} is its wire name.
 */
public sealed interface LoadBalancerEvent {

    LoadBalancer loadBalancer();

    Instant occurredAt();

    String type();

    /** The Service got its address. */
    record AddressAllocated(LoadBalancer loadBalancer, Instant occurredAt) implements LoadBalancerEvent {
        public String type() {
            return "kubernetes.loadBalancer.allocated";
        }
    }

    /** The Service's address went back to the provider. */
    record AddressReleased(LoadBalancer loadBalancer, Instant occurredAt) implements LoadBalancerEvent {
        public String type() {
            return "kubernetes.loadBalancer.released";
        }
    }

    /** The Service stays pending, for the reason the row names (told once per reason). */
    record LoadBalancerRefused(LoadBalancer loadBalancer, Instant occurredAt) implements LoadBalancerEvent {
        public String type() {
            return "kubernetes.loadBalancer.refused";
        }
    }

    /** The outbox's form: about the cluster, the same data for every load balancer event. */
    default DomainEvent stored() {
        LoadBalancer lb = loadBalancer();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("clusterId", lb.clusterId());
        data.put("namespace", lb.namespace());
        data.put("service", lb.service());
        data.put("serviceUid", lb.serviceUid());
        data.put("region", lb.region());
        data.put("providerName", lb.providerName());
        if (lb.address() != null) {
            data.put("address", lb.address());
        }
        if (lb.refusal() != null) {
            data.put("reason", lb.refusal().wire());
            data.put("message", lb.refusalText());
        }
        return new DomainEvent(type(), lb.tenantId(), lb.clusterId(), occurredAt(), data);
    }
}
