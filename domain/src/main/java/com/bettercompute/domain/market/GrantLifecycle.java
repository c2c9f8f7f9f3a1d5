package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The life of a gang and of its node grants (docs/decisions/market-pricing.md, "The tick" and "Around the market"): admitted
 * and granted nodes, ready, reclaimed with notice or at once, revoked and requeued, closed with its nodes
 * left idle, released when their hold and idle grace are over, drained. It is the one place that applies
 * the decisions of a pool's clearing ({@link #apply}); the other inputs that end a grant (a node out of
 * service or gone, a job ended) come here too, so a grant ends one way.
 */
final class GrantLifecycle {
    private final MarketState state;
    private final ChangeLog changes;
    private final ClusterQueues queues;
    /** The running tick's billing, so a grant ended inside the tick closes its ledger entry in it; else null. */
    private Billing billing;

    GrantLifecycle(MarketState state, ClusterQueues queues) {
        this.state = state;
        this.changes = state.changes;
        this.queues = queues;
    }

    /** Grants ended from here on close their ledger entries in {@code tickBilling} (null: no tick runs). */
    void billWith(Billing tickBilling) {
        this.billing = tickBilling;
    }

    /** Applies what a step of the pool's clearing decided, in order. */
    void apply(List<Decision> decided, PoolBook b, Instant now, List<MarketEvent> events) {
        for (Decision d : decided) {
            MarketRequest r = d.request();
            if (d instanceof Decision.GiveReason g) {
                if (g.at() >= 0) {
                    b.reasonAt[g.at()] = g.reason();
                }
                state.setReason(r, g.reason(), g.message(), now, events);
            } else if (d instanceof Decision.Rescind) {
                r.phase = RequestPhase.ADMITTED;
                r.noticeDeadline = null;
                changes.touch(r);
                events.add(new MarketEvent.ReclaimRescinded(now, r.id, r.jobId, r.cluster.id, r.grantedNodeIds()));
            } else if (d instanceof Decision.BackToWaiting w) {
                r.phase = RequestPhase.WAITING;
                b.kindAt[w.at()] = PoolBook.WAITING;
                // a waiting request's reason is mirrored in the book: the step that gives it compares the column
                b.reasonAt[w.at()] = r.reason;
                r.noticeDeadline = null;
                r.lockedRate = null;
                r.window(null);
                changes.touch(r);
            } else if (d instanceof Decision.ReclaimAtOnce a) {
                events.add(new MarketEvent.GangReclaimedAtOnce(now, r.id, r.jobId, r.cluster.id, b.pool.id(), a.cause(),
                        r.grantedNodeIds()));
                revoke(r, now, events, true, "reclaimed at once: " + a.cause() + "; the job requeues");
            } else if (d instanceof Decision.Notice n) {
                r.phase = RequestPhase.RECLAIMING;
                r.noticeDeadline = n.deadline();
                changes.touch(r);
                b.reclaiming.add(r);
                events.add(new MarketEvent.PreemptionNoticed(now, r.id, r.jobId, r.cluster.id, b.pool.id(),
                        r.noticeDeadline, r.grantedNodeIds(), n.price()));
            } else if (d instanceof Decision.Admit a) {
                r.phase = RequestPhase.ADMITTED;
                changes.touch(r);
                b.kindAt[a.at()] = PoolBook.HOLDING;
            } else if (d instanceof Decision.Fill f) {
                grantNodes(r, b, f.price(), f.limit(), now, events);
            } else if (d instanceof Decision.Rates rates) {
                r.gang.marketRate = rates.marketRate();
                r.gang.lockedInForce = rates.lockedInForce();
                changes.touch(r);
            } else if (d instanceof Decision.Provisioned) {
                r.provisioned = true;
                changes.touch(r);
                events.add(new MarketEvent.GangProvisioned(now, r.id, r.jobId, r.cluster.id, r.pool, r.nodes,
                        r.lockedRate));
            }
        }
    }

    /**
     * A granted node is ready in its cluster: its minimum hold and protection window start now (a replacement
     * keeps what remains of the one it replaces), and it bills from now; the gang's reason follows.
     */
    List<MarketEvent> nodeReady(Node node, Instant at) {
        NodeGrant g = node.grant;
        if (g == null || g.ready()) {
            return List.of();
        }
        g.readyAt = at;
        g.billedUntil = EpochNanos.of(at);
        if (g.protectedUntil() == null) {
            g.anchor(at.plus(state.timings().minimumHold()), at.plus(state.timings().protection()));
        }
        changes.touch(g);
        MarketRequest r = state.requestOf(g);
        if (r == null) {
            return List.of();
        }
        Instant window = ProtectionWindowPolicy.gangWindow(r.protectedUntil, g.protectedUntil());
        if (!window.equals(r.protectedUntil)) {
            r.window(window);
            changes.touch(r);
        }
        List<MarketEvent> events = new ArrayList<>();
        if (r.phase == RequestPhase.ADMITTED) {
            List<Decision> decided = new ArrayList<>();
            ReasonsStep.provisioning(r, decided);
            apply(decided, state.book(r.pool), at, events);
        }
        return events;
    }

    /**
     * A granted node left for good: its grant ends there, and a gang on it is revoked (its other nodes drain,
     * its job requeues); the events come out with the next tick's.
     */
    void nodeGone(Node node, Instant at) {
        NodeGrant g = node.grant;
        if (g == null) {
            return;
        }
        MarketRequest r = state.requestOf(g);
        detach(g);
        endGrant(g, at, null, false);
        if (r != null) {
            revoke(r, at, state.betweenTicks, true, "granted node " + node.id + " left the cluster; the job requeues");
        }
    }

    /**
     * Health checks took a granted node out of service: its grant stops billing now and, while protected,
     * the cluster is owed a replacement at the locked rate.
     */
    void nodeLost(Node node, Instant at) {
        NodeGrant g = node.grant;
        if (g == null) {
            return;
        }
        detach(g);
        endGrant(g, at, null, false);
        node.lostGrant = g;
        if (ReplacementPolicy.owed(at, g.protectedUntil())) {
            g.cluster.claims.computeIfAbsent(node.pool, p -> new ArrayDeque<>()).add(new ReplacementClaim(
                    g.cluster.id, node.pool, g.lockedRate, g.holdUntil(), g.protectedUntil(), node.id));
        }
    }

    /** A node back in service returns to the cluster that lost it as an idle node, ready as it returns. */
    void nodeBack(Node node, NodeGrant lost, PoolBook b, Instant at) {
        ArrayDeque<ReplacementClaim> claims = lost.cluster.claims.get(node.pool);
        if (claims != null) {
            claims.removeIf(c -> c.failedNodeId().equals(node.id));
        }
        NodeGrant g = new NodeGrant("g" + (++state.grantSequence), node.id, node.pool, lost.cluster,
                b.pool.gpusPerNode(), lost.lockedRate, at, lost.holdUntil(), lost.protectedUntil(), false);
        g.marketRate = lost.marketRate;
        g.lockedInForce = lost.lockedInForce;
        g.readyAt = at;
        g.billedUntil = EpochNanos.of(at);
        if (g.protectedUntil() == null) {
            g.anchor(at.plus(state.timings().minimumHold()), at.plus(state.timings().protection()));
        }
        node.grant = g;
        state.grants.put(g.id, g);
        changes.touch(g);
        b.granted++;
        makeIdle(g, at, b);
    }

    /** The job ended or was deleted: a gang's nodes stay with the cluster as idle nodes (hold, idle grace). */
    void close(MarketRequest r, Instant at) {
        switch (r.phase) {
            case QUEUED -> queues.dequeue(r);
            case WAITING -> r.cluster.usedGpus -= r.gpus;
            case ADMITTED -> {
                r.cluster.usedGpus -= r.gpus;
                PoolBook b = state.book(r.pool);
                for (NodeGrant g : r.grants) {
                    g.detach();
                    changes.touch(g);
                    makeIdle(g, at, b);
                }
            }
            case RECLAIMING -> {
                r.cluster.usedGpus -= r.gpus;
                for (NodeGrant g : r.grants) {
                    g.detach();
                    changes.touch(g);
                    endGrant(g, at, null, false);
                }
            }
            case SEATED -> {
                r.blockNode.seatedGpus -= r.gpus;
                changes.touch(r.blockNode);
            }
            default -> {
            }
        }
        r.grants.clear();
        boolean wasFiled = r.phase.filed();
        r.phase = RequestPhase.CLOSED;
        r.endedAt = at;
        changes.touch(r);
        if (wasFiled) {
            state.book(r.pool).markGone(r);
        }
        state.leave(r);
    }

    /** Notices that ran out: the gang is revoked; its pods had the notice as their grace, so no drain. */
    void expireNotices(Instant now, List<MarketEvent> events) {
        for (PoolBook b : state.pools.values()) {
            if (b.reclaiming.isEmpty()) {
                continue;
            }
            for (MarketRequest r : new ArrayList<>(b.reclaiming)) {
                if (r.phase == RequestPhase.RECLAIMING && RescindPolicy.expired(now, r.noticeDeadline)) {
                    revoke(r, r.noticeDeadline, events, false, "the market revoked the request; the job requeues");
                }
            }
            b.reclaiming.removeIf(r -> r.phase != RequestPhase.RECLAIMING);
        }
    }

    /** Idle nodes whose hold and idle grace are over leave their cluster. */
    void releaseIdle(Instant now, List<MarketEvent> events) {
        Iterator<NodeGrant> it = state.idleGrants.iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            Instant releaseAt = IdleGracePolicy.releaseAt(g.holdUntil(), g.idleSince, state.timings());
            if (!now.isBefore(releaseAt)) {
                it.remove();
                removeFromIdleQueue(g);
                endGrant(g, releaseAt, events, false);
            }
        }
    }

    /** A tenant whose balance ran out keeps no idle node: it would bill what the tenant does not have. */
    void releaseIdleOfRunOutTenants(Instant now, List<MarketEvent> events) {
        Iterator<NodeGrant> it = state.idleGrants.iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            if (BalanceCheckPolicy.ranOut(g.cluster.tenant.balanceMicros())) {
                it.remove();
                removeFromIdleQueue(g);
                billing.endingAfterBilling(g);
                endGrant(g, now, events, false);
            }
        }
    }

    /** Nodes whose eviction grace has passed return to supply. */
    void releaseDrained(Instant now) {
        for (PoolBook b : state.pools.values()) {
            if (b.draining.isEmpty()) {
                continue;
            }
            Iterator<Node> it = b.draining.iterator();
            while (it.hasNext()) {
                Node node = it.next();
                if (DrainPolicy.drained(now, node.drainingUntil)) {
                    it.remove();
                    node.drainingUntil = null;
                    changes.touch(node);
                    b.free.put(node.id, node);
                    b.supply++;
                }
            }
        }
    }

    /**
     * Failed=True (MarketRevoked): the gang's nodes are released (draining when its pods were running
     * and got no notice), and its job continues as a new request at its current limit.
     */
    private void revoke(MarketRequest r, Instant at, List<MarketEvent> events, boolean drain, String message) {
        for (NodeGrant g : r.grants) {
            g.detach();
            changes.touch(g);
            endGrant(g, at, events, drain);
        }
        r.grants.clear();
        r.phase = RequestPhase.REVOKED;
        r.endedAt = at;
        changes.touch(r);
        state.book(r.pool).markGone(r);
        r.noticeDeadline = null;
        r.cluster.usedGpus -= r.gpus;
        state.setReason(r, Reason.MARKET_REVOKED, message, at, events);
        state.leave(r);
        MarketRequest next = queues.enqueue(r.jobId, r.attempt + 1, r.cluster, r.pool, r.gpus, r.nodes, r.priority, at,
                r.jobLimit);
        events.add(new MarketEvent.GangRevoked(at, r.id, r.jobId, r.cluster.id, next.id));
        queues.admit(state.clusterBook(r.cluster.id), at, events);
    }

    /** Grants free or own idle nodes to a gang until it has all it asked for or none are left. */
    private void grantNodes(MarketRequest r, PoolBook b, Money price, long limit, Instant now,
                            List<MarketEvent> events) {
        ArrayDeque<NodeGrant> idle = b.idle.isEmpty() ? null : b.idle.get(r.cluster);
        while (r.grants.size() < r.nodes) {
            Node node;
            if (idle != null && !idle.isEmpty()) {
                NodeGrant old = idle.pollFirst();
                state.idleGrants.remove(old);
                if (idle.isEmpty()) {
                    b.idle.remove(r.cluster);
                }
                old.endsAt = now;
                changes.touch(old);
                if (billing != null && EpochNanos.of(now) == old.billedUntil) {
                    billing.close(old);
                }
                node = state.nodes.get(old.nodeId);
                node.grant = null;
                b.granted--;
            } else if (!b.free.isEmpty()) {
                node = b.free.pollFirstEntry().getValue();
            } else {
                break;
            }
            grant(r, node, b, price, limit, now, events);
        }
    }

    private void grant(MarketRequest r, Node node, PoolBook b, Money price, long limit, Instant now,
                       List<MarketEvent> events) {
        ReplacementClaim claim = null;
        ArrayDeque<ReplacementClaim> claims = r.cluster.claims.get(b.pool.id());
        while (claims != null && !claims.isEmpty() && claim == null) {
            ReplacementClaim c = claims.pollFirst();
            if (ReplacementPolicy.usable(now, c)) {
                claim = c;
            }
        }
        boolean first = r.lockedRate == null;
        if (first) {
            r.lockedRate = price != null ? price : b.pool.reserve();
        }
        String id = "g" + (++state.grantSequence);
        NodeGrant g = claim != null
                ? new NodeGrant(id, node.id, node.pool, r.cluster, b.pool.gpusPerNode(), claim.lockedRate(), now,
                        claim.holdUntil(), claim.protectedUntil(), true)
                : new NodeGrant(id, node.id, node.pool, r.cluster, b.pool.gpusPerNode(), r.lockedRate, now, null, null,
                        false);
        if (first) {
            r.window(g.protectedUntil());
            r.gang.marketRate = Math.min(g.lockedRate.micros(), limit);
            r.gang.lockedInForce = true;
            r.startLimit = limit;
        }
        g.gang = r.gang;
        node.grant = g;
        r.grants.add(g);
        changes.touch(r);
        state.grants.put(g.id, g);
        changes.touch(g);
        b.granted++;
        events.add(new MarketEvent.NodeGranted(now, r.id, r.jobId, r.cluster.id, b.pool.id(), node.id, g.id,
                g.lockedRate, g.protectedUntil(), g.replacement));
    }

    private void makeIdle(NodeGrant g, Instant at, PoolBook b) {
        g.idleSince = at;
        changes.touch(g);
        b.idle.computeIfAbsent(g.cluster, c -> new ArrayDeque<>()).add(g);
        state.idleGrants.add(g);
    }

    private void removeFromIdleQueue(NodeGrant g) {
        PoolBook b = state.book(g.pool);
        ArrayDeque<NodeGrant> q = b.idle.get(g.cluster);
        if (q != null) {
            q.remove(g);
            if (q.isEmpty()) {
                b.idle.remove(g.cluster);
            }
        }
    }

    /** A grant leaves its gang (and, idle, its cluster's idle nodes). */
    private void detach(NodeGrant g) {
        MarketRequest r = state.requestOf(g);
        if (r != null) {
            r.grants.remove(g);
            changes.touch(r);
            g.detach();
            changes.touch(g);
        }
        if (g.idleSince != null && state.idleGrants.remove(g)) {
            removeFromIdleQueue(g);
        }
    }

    /**
     * Ends a grant at {@code at}: billing stops there, and the node returns to supply if it can, at
     * once or after draining ({@link DrainPolicy}).
     */
    private void endGrant(NodeGrant g, Instant at, List<MarketEvent> events, boolean podsRunning) {
        g.endsAt = at;
        changes.touch(g);
        if (billing != null && EpochNanos.of(at) == g.billedUntil) {
            billing.close(g);
        }
        Node node = state.nodes.get(g.nodeId);
        if (node == null || node.grant != g) {
            return;
        }
        node.grant = null;
        PoolBook b = state.book(node.pool);
        b.granted--;
        if (!node.inService || node.block != null) {
            return;
        }
        Instant drainsUntil = DrainPolicy.drainsUntil(at, podsRunning, state.timings());
        if (drainsUntil != null) {
            node.drainingUntil = drainsUntil;
            changes.touch(node);
            b.supply--;
            b.draining.add(node);
        } else {
            b.free.put(node.id, node);
        }
        if (events != null) {
            events.add(new MarketEvent.NodeReleased(at, node.id, g.cluster.id, node.pool));
        }
    }
}
