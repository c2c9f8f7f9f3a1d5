package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.access.Caller;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Node;
import com.bettercompute.domain.market.NodeGrant;
import com.bettercompute.domain.market.Pool;
import com.bettercompute.domain.market.RequestPhase;
import com.bettercompute.domain.market.TenantCluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A market-managed cluster as a person reads it in the console: its max cluster size, its market nodes as
 * tiles, and the marks the spec gives a request's row beside its reason ("gang scheduled", "Replacement
 * Pending", "protected at the cluster's locked rate", "capacity unavailable"). Needs read on the cluster;
 * another organization's cluster, or one not in the market, is {@code NOT_FOUND}.
 */
public final class ReadMarketCluster {
    /** What a node tile reads. */
    public enum NodeState {
        /** Indicates the node is granted and not yet ready in the cluster. */
        JOINING,
        /** Indicates the node is ready and serves its request. */
        READY,
        /** Indicates the node is the cluster's, with no request on it (the idle grace runs). */
        IDLE,
        /** Indicates the gang is reclaimed with notice: the node drains until the notice deadline. */
        DRAINING_UNDER_NOTICE,
        /** Indicates health checks took the node out of service: "Node Fix In Progress". */
        NODE_FIX_IN_PROGRESS
    }

    /** One market node of the cluster. {@code request} and {@code job} are null for an idle or failed node. */
    public record NodeTile(String node, String pool, String request, String job, Money lockedRate, Instant holdUntil,
                           Instant protectedUntil, NodeState state, Instant deadline, boolean replacement) {
    }

    /** The marks of one request's row. */
    public record Marks(boolean gangScheduled, boolean replacementPending, boolean protectedAtClusterRate,
                        boolean capacityUnavailable) {
    }

    public record View(String cluster, long maxClusterGpus, long usedGpus, Money limit, List<NodeTile> nodes,
                       Map<String, Marks> marks) {
        public View {
            nodes = List.copyOf(nodes);
            marks = Map.copyOf(marks);
        }
    }

    private final MarketCallers callers;
    private final MarketRepository markets;

    public ReadMarketCluster(MarketCallers callers, MarketRepository markets) {
        this.callers = callers;
        this.markets = markets;
    }

    public View read(Caller caller, String org, String name) {
        Cluster cluster = callers.cluster(caller, org, name, Action.READ);
        Market market = markets.load();
        Bids.requireEnrolled(market, cluster);
        TenantCluster tc = market.cluster(cluster.id());
        Map<String, MarketRequest> open = new HashMap<>();
        Map<String, Marks> marks = new HashMap<>();
        for (MarketRequest r : market.openRequests()) {
            if (r.clusterId().equals(cluster.id())) {
                open.put(r.id(), r);
                marks.put(r.id(), marks(market, r));
            }
        }
        List<NodeTile> nodes = new ArrayList<>();
        for (Pool p : market.pools()) {
            for (Node n : market.nodes(p.id())) {
                NodeTile tile = tile(n, cluster.id(), open);
                if (tile != null) {
                    nodes.add(tile);
                }
            }
        }
        nodes.sort(Comparator.comparing(NodeTile::node));
        return new View(cluster.name(), tc.maxGpus(), tc.usedGpus(), tc.limit(), nodes, marks);
    }

    static Marks marks(Market market, MarketRequest r) {
        boolean running = r.provisioned() && r.phase() != RequestPhase.RECLAIMING;
        boolean protectedAtClusterRate = false;
        for (String nodeId : r.grantedNodeIds()) {
            NodeGrant g = market.node(nodeId).grant();
            if (g != null && g.replacement() && g.lockedRate() != null && r.effectiveLimit() != null
                    && r.effectiveLimit().isBelow(g.lockedRate())) {
                protectedAtClusterRate = true;
            }
        }
        boolean waiting = r.phase() == RequestPhase.QUEUED || r.phase() == RequestPhase.WAITING;
        return new Marks(running && r.readyNodes() == r.nodes(),
                // a cordoned node leaves the gang at once; the request stays provisioned until its replacement joins
                running && r.readyNodes() < r.nodes(),
                protectedAtClusterRate,
                waiting && market.supply(r.pool()) == 0);
    }

    private static NodeTile tile(Node n, String clusterId, Map<String, MarketRequest> open) {
        NodeGrant lost = n.lostGrant();
        if (!n.inService() && lost != null && lost.clusterId().equals(clusterId)) {
            return new NodeTile(n.id(), n.pool().toString(), null, null, lost.lockedRate(), lost.holdUntil(),
                    lost.protectedUntil(), NodeState.NODE_FIX_IN_PROGRESS, null, lost.replacement());
        }
        NodeGrant g = n.grant();
        if (g == null || !g.clusterId().equals(clusterId)) {
            return null;
        }
        MarketRequest r = g.requestId() == null ? null : open.get(g.requestId());
        NodeState state;
        Instant deadline = null;
        if (r != null && r.phase() == RequestPhase.RECLAIMING) {
            state = NodeState.DRAINING_UNDER_NOTICE;
            deadline = r.noticeDeadline();
        } else if (g.idle()) {
            state = NodeState.IDLE;
        } else {
            state = g.readyAt() == null ? NodeState.JOINING : NodeState.READY;
        }
        return new NodeTile(n.id(), n.pool().toString(), g.requestId(), r == null ? null : r.jobId(), g.lockedRate(),
                g.holdUntil(), g.protectedUntil(), state, deadline, g.replacement());
    }
}
