package com.bettercompute.application.nodepool;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.event.DomainEvent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The node pool events, built in one place so the use cases and the reconciler write the same data.
 * {@code created} and {@code deleting} come from the calls; the others from the reconciler, read off the
 * change of a pool's state between two versions of its cluster ({@link #transitions}).
 */
public final class NodePoolEvents {
    public static final String CREATED = "kubernetes.nodepool.created";
    public static final String READY = "kubernetes.nodepool.ready";
    public static final String UPDATED = "kubernetes.nodepool.updated";
    public static final String ERROR = "kubernetes.nodepool.error";
    public static final String DELETING = "kubernetes.nodepool.deleting";
    public static final String DELETED = "kubernetes.nodepool.deleted";

    private NodePoolEvents() {}

    public static DomainEvent of(String type, Cluster c, NodePool p, Instant at) {
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
        return new DomainEvent(type, c.tenantId(), p.id(), at, data);
    }

    /**
     * The events of the reconciler moving pools from {@code before} to {@code after}: {@code ready} the first
     * time a pool is ready, {@code updated} when it is ready again after a change or an error, {@code error}
     * when it fails (or fails otherwise), {@code deleted} once a pool the tenant removed is gone. None while
     * the whole cluster is being deleted: {@code kubernetes.cluster.deleted} says it for all its pools.
     */
    public static List<DomainEvent> transitions(Cluster before, Cluster after, Instant at) {
        List<DomainEvent> events = new ArrayList<>();
        if (after.deleteRequested()) {
            return events;
        }
        for (NodePool now : after.nodePools()) {
            Optional<NodePool> was = before.nodePools().stream().filter(p -> p.id().equals(now.id())).findFirst();
            ClusterState from = was.map(NodePool::state).orElse(ClusterState.PENDING);
            String type = type(from, was.map(NodePool::message).orElse(null), now);
            if (type != null) {
                events.add(of(type, after, now, at));
            }
        }
        return events;
    }

    static String type(ClusterState from, String fromMessage, NodePool now) {
        ClusterState to = now.state();
        if (to == ClusterState.ERROR) {
            return from != ClusterState.ERROR || !Objects.equals(fromMessage, now.message()) ? ERROR : null;
        }
        if (from == to) {
            return null;
        }
        if (to == ClusterState.READY) {
            return from == ClusterState.PENDING || from == ClusterState.PROVISIONING ? READY : UPDATED;
        }
        if (to == ClusterState.DELETED && from == ClusterState.DELETING) {
            return DELETED;
        }
        return null;
    }
}
