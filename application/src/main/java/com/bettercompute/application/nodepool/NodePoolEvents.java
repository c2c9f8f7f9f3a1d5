package com.bettercompute.application.nodepool;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.event.NodePoolEvent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The node pool events the reconciler publishes, read off the change of each pool's state between two versions
 * of its cluster ({@link #transitions}). {@code created} and {@code deleting} come from the calls.
 */
public final class NodePoolEvents {

    private NodePoolEvents() {}

    /**
     * The events of the reconciler moving pools from {@code before} to {@code after}: {@code ready} the first
     * time a pool is ready, {@code updated} when it is ready again after a change or an error, {@code error}
     * when it fails (or fails otherwise), {@code deleted} once a pool the tenant removed is gone. None while
     * the whole cluster is being deleted: {@code kubernetes.cluster.deleted} says it for all its pools.
     */
    public static List<NodePoolEvent> transitions(Cluster before, Cluster after, Instant at) {
        List<NodePoolEvent> events = new ArrayList<>();
        if (after.deleteRequested()) {
            return events;
        }
        for (NodePool now : after.nodePools()) {
            Optional<NodePool> was = before.nodePools().stream().filter(p -> p.id().equals(now.id())).findFirst();
            ClusterState from = was.map(NodePool::state).orElse(ClusterState.PENDING);
            NodePoolEvent event = event(from, was.map(NodePool::message).orElse(null), after, now, at);
            if (event != null) {
                events.add(event);
            }
        }
        return events;
    }

    static NodePoolEvent event(ClusterState from, String fromMessage, Cluster c, NodePool now, Instant at) {
        ClusterState to = now.state();
        if (to == ClusterState.ERROR) {
            return from != ClusterState.ERROR || !Objects.equals(fromMessage, now.message()) ? new NodePoolEvent.NodePoolFailed(c, now, at) : null;
        }
        if (from == to) {
            return null;
        }
        if (to == ClusterState.READY) {
            return from == ClusterState.PENDING || from == ClusterState.PROVISIONING
                    ? new NodePoolEvent.NodePoolReady(c, now, at) : new NodePoolEvent.NodePoolUpdated(c, now, at);
        }
        if (to == ClusterState.DELETED && from == ClusterState.DELETING) {
            return new NodePoolEvent.NodePoolDeleted(c, now, at);
        }
        return null;
    }
}
