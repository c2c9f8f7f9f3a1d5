package com.bettercompute.domain.market;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The market's state to its {@link MarketSnapshot} and back, and its recorded changes to {@link MarketChanges}.
 * Every order the tick depends on (grant order, idle order, queue order, notice order, drain order) is kept,
 * so a restored market decides exactly as the original would have.
 */
final class MarketSnapshotCodec {
    private MarketSnapshotCodec() {
    }

    static MarketSnapshot encode(MarketState m) {
        return encode(m, true);
    }

    /** The changes since they were last cleared ({@link ChangeLog}), the requests among them encoded alone. */
    static MarketChanges changes(MarketState m) {
        ChangeLog log = m.changes;
        List<MarketRequest> touched = new ArrayList<>(log.requests);
        touched.sort(java.util.Comparator.comparingLong(r -> r.sequence));
        List<MarketSnapshot.RequestState> open = new ArrayList<>();
        List<MarketChanges.Gone> gone = new ArrayList<>();
        for (MarketRequest r : touched) {
            if (m.requests.get(r.id) == r) {
                open.add(requestState(r));
            } else {
                gone.add(new MarketChanges.Gone(r.id, r.sequence, r.phase == RequestPhase.REVOKED, requestState(r), r.endedAt));
            }
        }
        List<Node> nodes = new ArrayList<>();
        java.util.Set<String> nodesGone = new java.util.TreeSet<>();
        for (Node n : log.nodes) {
            Node now = m.nodes.get(n.id);
            if (now == null) {
                nodesGone.add(n.id);
            } else if (now == n) {
                nodes.add(n);
            }
        }
        for (Node n : m.nodes.values()) {
            // a lost grant's state is part of its node's, and billing moves it without touching the node
            if (n.lostGrant != null && !log.nodes.contains(n)) {
                nodes.add(n);
            }
        }
        nodes.sort(java.util.Comparator.comparing(n -> n.id));
        List<MarketChanges.PoolNode> nodeStates = new ArrayList<>(nodes.size());
        for (Node n : nodes) {
            nodeStates.add(new MarketChanges.PoolNode(n.pool, nodeState(n)));
        }
        List<NodeGrant> grants = new ArrayList<>();
        List<String> grantsGone = new ArrayList<>();
        for (NodeGrant g : log.grants) {
            if (m.grants.get(g.id) == g) {
                grants.add(g);
            } else {
                grantsGone.add(g.id);
            }
        }
        grants.sort(java.util.Comparator.comparing(g -> g.id));
        grantsGone.sort(null);
        List<MarketSnapshot.GrantState> billed = new ArrayList<>(log.billed.size());
        for (NodeGrant g : log.billed) {
            if (!log.grants.contains(g) && m.grants.get(g.id) == g) {
                billed.add(grantState(g));
            }
        }
        return new MarketChanges(encode(m, false), List.copyOf(open), List.copyOf(gone), List.copyOf(nodeStates),
                List.copyOf(nodesGone), grants.stream().map(MarketSnapshotCodec::grantState).toList(),
                List.copyOf(billed), List.copyOf(grantsGone));
    }

    /**
     * The whole snapshot, or ({@code whole} false) one without requests, grants and ended attempts, its pools without
     * nodes: a store keeps those from the changes ({@link MarketChanges#gone()} carries every request that left).
     */
    private static MarketSnapshot encode(MarketState m, boolean whole) {
        List<MarketSnapshot.PoolState> poolStates = new ArrayList<>();
        for (PoolBook b : m.pools.values()) {
            List<MarketSnapshot.NodeState> nodeStates = new ArrayList<>();
            if (whole) {
                for (Node n : b.nodes.values()) {
                    nodeStates.add(nodeState(n));
                }
            }
            List<String> reclaimingIds = new ArrayList<>();
            for (MarketRequest r : b.reclaiming) {
                if (r.phase == RequestPhase.RECLAIMING) {
                    reclaimingIds.add(r.id);
                }
            }
            poolStates.add(new MarketSnapshot.PoolState(b.pool.id(), b.pool.gpusPerNode(), b.pool.reserve(),
                    b.lastPrice, List.copyOf(nodeStates), List.copyOf(reclaimingIds),
                    b.draining.stream().map(n -> n.id).toList()));
        }
        List<MarketSnapshot.TenantState> tenantStates = new ArrayList<>();
        for (Tenant t : m.tenants.values()) {
            tenantStates.add(new MarketSnapshot.TenantState(t.id, t.credits, t.settled));
        }
        List<MarketSnapshot.ClusterState> clusterStates = new ArrayList<>();
        for (ClusterBook book : m.clusters.values()) {
            TenantCluster c = book.cluster;
            List<ReplacementClaim> claims = new ArrayList<>();
            for (ArrayDeque<ReplacementClaim> q : new TreeMap<>(c.claims).values()) {
                claims.addAll(q);
            }
            clusterStates.add(new MarketSnapshot.ClusterState(c.id, c.tenant.id, c.maxGpus, c.limit, c.usedGpus,
                    book.queue.stream().map(r -> r.id).toList(), book.blockWaiting.stream().map(r -> r.id).toList(),
                    List.copyOf(claims), c.packing, c.limitSetAt));
        }
        List<MarketSnapshot.RequestState> requestStates = new ArrayList<>();
        List<MarketSnapshot.GrantState> grantStates = new ArrayList<>();
        if (whole) {
            for (MarketRequest r : m.openRequests()) {
                requestStates.add(requestState(r));
            }
            for (NodeGrant g : m.grants.values()) {
                grantStates.add(grantState(g));
            }
        }
        List<String> idleOrder = m.idleGrants.stream().map(g -> g.id).toList();
        return new MarketSnapshot(m.timings(), m.lastTick, m.sequence, m.grantSequence, List.copyOf(poolStates),
                List.copyOf(tenantStates), List.copyOf(clusterStates), List.copyOf(requestStates),
                List.copyOf(grantStates), idleOrder, List.copyOf(m.betweenTicks),
                whole ? m.endedAttempts : Map.of());
    }

    private static MarketSnapshot.NodeState nodeState(Node n) {
        return new MarketSnapshot.NodeState(n.id, n.inService, n.block == null ? null : n.block.id, n.seatedGpus,
                n.lostGrant == null ? null : grantState(n.lostGrant), n.drainingUntil, n.blockReadyAt);
    }

    private static MarketSnapshot.RequestState requestState(MarketRequest r) {
        return new MarketSnapshot.RequestState(r.id, r.jobId, r.attempt, r.cluster.id, r.pool, r.gpus,
                r.nodes, r.priority, r.sequence, r.createdAt, r.jobLimit, r.phase, r.reason, r.message,
                r.grants.stream().map(g -> g.id).toList(), r.lockedRate, r.protectedUntil, r.startLimit,
                r.noticeDeadline, r.provisioned, r.blockNode == null ? null : r.blockNode.id, r.gang.marketRate,
                r.gang.lockedInForce);
    }

    private static MarketSnapshot.GrantState grantState(NodeGrant g) {
        return new MarketSnapshot.GrantState(g.id, g.nodeId, g.pool, g.cluster.id, g.gpus, g.lockedRate,
                g.grantedAt, g.readyAt, g.holdUntil(), g.protectedUntil(), g.replacement,
                g.gang == null ? null : g.gang.requestId, g.idleSince, g.marketRate, g.lockedInForce,
                EpochNanos.instant(g.billedUntil), g.endsAt, EpochNanos.instant(g.entryFrom), g.entryRate,
                g.entryLocked, g.entryAccrued, g.carry);
    }

    static MarketState decode(MarketSnapshot s) {
        MarketState m = new MarketState(s.timings());
        m.lastTick = s.lastTick();
        m.sequence = s.sequence();
        m.grantSequence = s.grantSequence();
        m.betweenTicks.addAll(s.betweenTicks());
        m.endedAttempts.putAll(s.endedAttempts());
        for (MarketSnapshot.TenantState t : s.tenants()) {
            Tenant tenant = new Tenant(t.id(), m.tenants.size(), t.creditsMicros());
            tenant.settled = t.settledMicros();
            m.tenants.put(t.id(), tenant);
        }
        for (MarketSnapshot.ClusterState c : s.clusters()) {
            TenantCluster cluster = new TenantCluster(c.id(), m.tenants.get(c.tenantId()), m.clusters.size(),
                    c.maxGpus(), c.limit());
            cluster.usedGpus = c.usedGpus();
            cluster.packing = c.packing();
            cluster.limitSetAt = c.limitSetAt();
            for (ReplacementClaim claim : c.claims()) {
                cluster.claims.computeIfAbsent(claim.pool(), p -> new ArrayDeque<>()).add(claim);
            }
            m.clusters.put(c.id(), new ClusterBook(cluster));
        }
        decodeNodes(m, s);
        Map<String, MarketRequest> byId = decodeRequests(m, s);
        for (MarketSnapshot.ClusterState c : s.clusters()) {
            ClusterBook book = m.clusters.get(c.id());
            c.queueIds().forEach(id -> book.queue.add(byId.get(id)));
            c.blockWaitingIds().forEach(id -> book.blockWaiting.add(byId.get(id)));
        }
        decodeGrants(m, s, byId);
        billToLastTick(m);
        for (MarketSnapshot.PoolState p : s.pools()) {
            PoolBook b = m.pools.get(p.id());
            p.reclaimingIds().forEach(id -> b.reclaiming.add(byId.get(id)));
            p.drainingIds().forEach(id -> b.draining.add(m.nodes.get(id)));
            for (MarketSnapshot.NodeState ns : p.nodes()) {
                Node node = m.nodes.get(ns.id());
                if (ns.lostGrant() != null) {
                    node.lostGrant = grantOf(m, ns.lostGrant());
                }
                if (node.inService && node.block == null && node.grant == null && node.drainingUntil == null) {
                    b.free.put(node.id, node);
                }
            }
        }
        m.changes.record();
        return m;
    }

    private static void decodeNodes(MarketState m, MarketSnapshot s) {
        for (MarketSnapshot.PoolState p : s.pools()) {
            PoolBook b = new PoolBook(new Pool(p.id(), p.gpusPerNode(), p.reserve()));
            b.lastPrice = p.lastPrice();
            m.pools.put(p.id(), b);
            for (MarketSnapshot.NodeState ns : p.nodes()) {
                Node node = new Node(ns.id(), p.id());
                node.inService = ns.inService();
                node.seatedGpus = ns.seatedGpus();
                node.drainingUntil = ns.drainingUntil();
                if (ns.blockClusterId() != null) {
                    node.blockReadyAt = ns.blockReadyAt();
                    node.block = clusterOf(m, ns.blockClusterId());
                    node.block.blockNodes.add(node.id);
                }
                m.nodes.put(node.id, node);
                b.nodes.put(node.id, node);
                if (node.inService && node.block == null && node.drainingUntil == null) {
                    b.supply++;
                }
            }
        }
    }

    private static Map<String, MarketRequest> decodeRequests(MarketState m, MarketSnapshot s) {
        Map<String, MarketRequest> byId = new HashMap<>();
        for (MarketSnapshot.RequestState rs : s.requests()) {
            MarketRequest r = new MarketRequest(rs.id(), rs.jobId(), rs.attempt(), clusterOf(m, rs.clusterId()),
                    rs.pool(), rs.gpus(), rs.nodes(), rs.priority(), rs.sequence(), rs.createdAt(), rs.jobLimit());
            r.phase = rs.phase();
            r.reason = rs.reason();
            r.message = rs.message();
            r.lockedRate = rs.lockedRate();
            r.window(rs.protectedUntil());
            r.startLimit = rs.startLimit();
            r.noticeDeadline = rs.noticeDeadline();
            r.provisioned = rs.provisioned();
            r.blockNode = rs.blockNodeId() == null ? null : m.nodes.get(rs.blockNodeId());
            r.gang.marketRate = rs.marketRate();
            r.gang.lockedInForce = rs.lockedInForce();
            byId.put(r.id, r);
            m.requests.put(r.id, r);
            m.openByJob.put(r.jobId, r);
            if (r.phase.filed()) {
                m.book(r.pool).added.add(r);
            }
        }
        return byId;
    }

    private static void decodeGrants(MarketState m, MarketSnapshot s, Map<String, MarketRequest> byId) {
        Map<String, NodeGrant> grantsById = new HashMap<>();
        for (MarketSnapshot.GrantState gs : s.grants()) {
            NodeGrant g = grantOf(m, gs);
            if (gs.requestId() != null) {
                g.gang = byId.get(gs.requestId()).gang;
            }
            m.grants.put(g.id, g);
            grantsById.put(g.id, g);
            if (g.endsAt == null) {
                Node node = m.nodes.get(g.nodeId);
                if (node != null) {
                    node.grant = g;
                }
                m.book(g.pool).granted++;
            }
        }
        for (MarketSnapshot.RequestState rs : s.requests()) {
            MarketRequest r = byId.get(rs.id());
            rs.grantIds().forEach(id -> r.grants.add(grantsById.get(id)));
        }
        for (String id : s.idleOrder()) {
            NodeGrant g = grantsById.get(id);
            m.idleGrants.add(g);
            m.book(g.pool).idle.computeIfAbsent(g.cluster, c -> new ArrayDeque<>()).add(g);
        }
    }

    /**
     * A saved grant's cursor moves only when its ledger entry opens, closes for good or is cut short by the
     * balance ({@link Billing}): between those, every tick accrued it at its open entry's one rate, on from one
     * period into the next, which this does again up to the last tick ({@link Billing#billSaved}; the accrual
     * telescopes, so one step gives what the ticks gave). Each tenant's charges are then its closed entries
     * (its settled total) plus its grants' open ones.
     */
    private static void billToLastTick(MarketState m) {
        long last = m.lastTick == null ? EpochNanos.NONE : EpochNanos.of(m.lastTick);
        long periodNanos = m.timings().billingPeriod().toNanos();
        for (NodeGrant g : m.grants.values()) {
            if (g.entryFrom == EpochNanos.NONE) {
                continue;
            }
            if (last != EpochNanos.NONE) {
                Billing.billSaved(g, g.endsAt == null ? last : Math.min(last, EpochNanos.of(g.endsAt)), periodNanos);
            }
            g.cluster.tenant.charged += g.entryAccrued;
        }
        for (Tenant t : m.tenants.values()) {
            t.charged += t.settled;
        }
    }

    /** A grant as saved; its node may be gone (the operator removed it), its ended grant still billing to its end. */
    private static NodeGrant grantOf(MarketState m, MarketSnapshot.GrantState gs) {
        NodeGrant g = new NodeGrant(gs.id(), gs.nodeId(), gs.pool(), clusterOf(m, gs.clusterId()),
                gs.gpus(), gs.lockedRate(), gs.grantedAt(), gs.holdUntil(), gs.protectedUntil(), gs.replacement());
        g.readyAt = gs.readyAt();
        g.idleSince = gs.idleSince();
        g.marketRate = gs.marketRate();
        g.lockedInForce = gs.lockedInForce();
        g.billedUntil = EpochNanos.of(gs.billedUntil());
        g.endsAt = gs.endsAt();
        g.entryFrom = EpochNanos.of(gs.entryFrom());
        g.entryRate = gs.entryRate();
        g.entryLocked = gs.entryLocked();
        g.entryAccrued = gs.entryAccrued();
        g.carry = gs.carry();
        return g;
    }

    private static TenantCluster clusterOf(MarketState m, String id) {
        ClusterBook book = m.clusters.get(id);
        return book == null ? null : book.cluster;
    }
}
