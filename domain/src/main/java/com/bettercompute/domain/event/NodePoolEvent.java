package com.bettercompute.domain.event;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.NodePool;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What happened to a node pool, in the spec's words. Each record carries the cluster and the pool as saved
 * with the event; {@link #type()} is the wire name and {@link #stored()} the outbox's form.
 */
public sealed interface NodePoolEvent extends KubernetesEvent {

    Cluster cluster();

    NodePool pool();

    Instant occurredAt();

    /** The spec's name of the event, such as {@code kubernetes.nodepool.ready}. */
    String type();

    /** {@code kubernetesNodePools.create} recorded the pool. */
    record NodePoolCreated(Cluster cluster, NodePool pool, Instant occurredAt) implements NodePoolEvent {
        public String type() {
            return "kubernetes.nodepool.created";
        }
    }

    /** The pool is ready for the first time. */
    record NodePoolReady(Cluster cluster, NodePool pool, Instant occurredAt) implements NodePoolEvent {
        public String type() {
            return "kubernetes.nodepool.ready";
        }
    }

    /** Ready again after a change or an error. */
    record NodePoolUpdated(Cluster cluster, NodePool pool, Instant occurredAt) implements NodePoolEvent {
        public String type() {
            return "kubernetes.nodepool.updated";
        }
    }

    /** The pool became {@code error}, or its error's message changed. */
    record NodePoolFailed(Cluster cluster, NodePool pool, Instant occurredAt) implements NodePoolEvent {
        public String type() {
            return "kubernetes.nodepool.error";
        }
    }

    /** {@code kubernetesNodePools.delete} marked the pool for deletion. */
    record NodePoolDeleting(Cluster cluster, NodePool pool, Instant occurredAt) implements NodePoolEvent {
        public String type() {
            return "kubernetes.nodepool.deleting";
        }
    }

    /** The pool the tenant removed is gone at the provider. */
    record NodePoolDeleted(Cluster cluster, NodePool pool, Instant occurredAt) implements NodePoolEvent {
        public String type() {
            return "kubernetes.nodepool.deleted";
        }
    }

    /** The outbox's form: the wire name, the tenant, the pool as subject, and the pool's data. */
    default DomainEvent stored() {
        Cluster c = cluster();
        NodePool p = pool();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("nodePoolId", p.id());
        data.put("clusterId", c.id());
        data.put("tenantId", c.tenantId());
        data.put("name", p.spec().name());
        data.put("state", p.state().wire());
        data.put("version", p.version());
        if (p.message() != null) {
            data.put("message", p.message());
        }
        return new DomainEvent(type(), c.tenantId(), p.id(), occurredAt(), data);
    }
}
