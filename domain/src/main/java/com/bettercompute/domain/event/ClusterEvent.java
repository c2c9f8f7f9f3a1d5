package com.bettercompute.domain.event;

import com.bettercompute.domain.cluster.Cluster;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What happened to a cluster, in the spec's words. Each record carries the cluster as it was saved with
 * the event and when it happened; {@link #type()} is the spec's wire name, and {@link #stored()} the
 * outbox's form (the same data for every cluster event, so consumers read one shape).
 */
public sealed interface ClusterEvent extends KubernetesEvent {

    Cluster cluster();

    Instant occurredAt();

    /** The spec's name of the event, such as {@code kubernetes.cluster.ready}. */
    String type();

    /** {@code kubernetesClusters.create} recorded the cluster. */
    record ClusterCreated(Cluster cluster, Instant occurredAt) implements ClusterEvent {
        public String type() {
            return "kubernetes.cluster.created";
        }
    }

    /** {@code kubernetesClusters.delete} marked the cluster for deletion. */
    record ClusterDeleting(Cluster cluster, Instant occurredAt) implements ClusterEvent {
        public String type() {
            return "kubernetes.cluster.deleting";
        }
    }

    /** The cluster is ready for the first time. */
    record ClusterReady(Cluster cluster, Instant occurredAt) implements ClusterEvent {
        public String type() {
            return "kubernetes.cluster.ready";
        }
    }

    /** Ready again after a change or an error, or the provider moved it to another version. */
    record ClusterUpdated(Cluster cluster, Instant occurredAt) implements ClusterEvent {
        public String type() {
            return "kubernetes.cluster.updated";
        }
    }

    /** The cluster became {@code error}, or its error's message changed. */
    record ClusterFailed(Cluster cluster, Instant occurredAt) implements ClusterEvent {
        public String type() {
            return "kubernetes.cluster.error";
        }
    }

    /** Gone at the provider. */
    record ClusterDeleted(Cluster cluster, Instant occurredAt) implements ClusterEvent {
        public String type() {
            return "kubernetes.cluster.deleted";
        }
    }

    /** The outbox's form: the wire name, the tenant, the cluster as subject, and the cluster's data. */
    default DomainEvent stored() {
        Cluster c = cluster();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("clusterId", c.id());
        data.put("tenantId", c.tenantId());
        data.put("name", c.name());
        data.put("mode", c.mode().wire());
        data.put("location", c.location());
        data.put("poolId", c.poolId());
        data.put("state", c.state().wire());
        data.put("version", c.version());
        if (c.message() != null) {
            data.put("message", c.message());
        }
        return new DomainEvent(type(), c.tenantId(), c.id(), occurredAt(), data);
    }
}
