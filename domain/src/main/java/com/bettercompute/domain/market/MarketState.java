package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The market's state and the reads of it: pools (each with its order book), tenants, clusters (each with its
 * queue), nodes, open requests, node grants, the events of calls between ticks, and what changed since the
 * changes were last cleared ({@link ChangeLog}). The parts that take the market's inputs write it, each the
 * state of its job; the steps of a pool's clearing only read it.
 */
final class MarketState {
    private MarketTimings timings;
    final Map<PoolId, PoolBook> pools = new TreeMap<>();
    final Map<String, Tenant> tenants = new LinkedHashMap<>();
    final Map<String, ClusterBook> clusters = new LinkedHashMap<>();
    final Map<String, Node> nodes = new HashMap<>();
    final Map<String, MarketRequest> openByJob = new HashMap<>();
    final Map<String, MarketRequest> requests = new HashMap<>();
    /**
     * The highest attempt of each job id among its requests that left the market: a job filed again under that id
     * goes on from it ({@link #nextAttempt}), so no request id is ever used twice.
     */
    final Map<String, Integer> endedAttempts = new HashMap<>();
    final LinkedHashMap<String, NodeGrant> grants = new LinkedHashMap<>();
    final LinkedHashSet<NodeGrant> idleGrants = new LinkedHashSet<>();
    /** Events of calls between ticks (filing, removals), published with the next tick's. */
    final List<MarketEvent> betweenTicks = new ArrayList<>();
    final ChangeLog changes = new ChangeLog();
    long sequence;
    long grantSequence;
    Instant lastTick;

    MarketState(MarketTimings timings) {
        this.timings = Objects.requireNonNull(timings);
    }

    MarketTimings timings() {
        return timings;
    }

    /** New durations apply from the next decision on: grants already made keep the hold and window they were given. */
    void changeTimings(MarketTimings newTimings) {
        this.timings = Objects.requireNonNull(newTimings);
    }

    /** A request's reason and message change: one event per change, like the Job's Events. */
    void setReason(MarketRequest r, Reason reason, String message, Instant at, List<MarketEvent> events) {
        r.reason = reason;
        r.message = message;
        changes.touch(r);
        events.add(new MarketEvent.ReasonChanged(at, r.id, r.jobId, r.cluster.id, reason, message));
    }

    PoolBook book(PoolId id) {
        PoolBook b = pools.get(id);
        if (b == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no pool " + id, Map.of("pool", String.valueOf(id)));
        }
        return b;
    }

    ClusterBook clusterBook(String id) {
        ClusterBook c = clusters.get(id);
        if (c == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no cluster " + id, Map.of("cluster", id));
        }
        return c;
    }

    TenantCluster cluster(String id) {
        return clusterBook(id).cluster;
    }

    List<TenantCluster> clusters() {
        List<TenantCluster> out = new ArrayList<>(clusters.size());
        for (ClusterBook c : clusters.values()) {
            out.add(c.cluster);
        }
        return List.copyOf(out);
    }

    Tenant tenant(String id) {
        Tenant t = tenants.get(id);
        if (t == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no tenant " + id, Map.of("tenant", id));
        }
        return t;
    }

    Node node(String id) {
        Node n = nodes.get(id);
        if (n == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no node " + id, Map.of("node", id));
        }
        return n;
    }

    /**
     * The attempt a job's new filing gets: one after the highest its job id has had, so its request id
     * ({@code <job>}, then {@code <job>#<attempt>}) was never used; 1 for a job id never filed.
     */
    int nextAttempt(String jobId) {
        return endedAttempts.getOrDefault(jobId, 0) + 1;
    }

    /** An open request leaves the market (closed or revoked): its job id's attempts go on after it. */
    void leave(MarketRequest r) {
        requests.remove(r.id);
        openByJob.remove(r.jobId);
        endedAttempts.merge(r.jobId, r.attempt, Math::max);
    }

    /** The open request of a job (the latest attempt), or NOT_FOUND. */
    MarketRequest openRequest(String jobId) {
        MarketRequest r = openByJob.get(jobId);
        if (r == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "job " + jobId + " has no open request",
                    Map.of("jobId", jobId));
        }
        return r;
    }

    /** The request a grant serves; null for an idle or ended grant. */
    MarketRequest requestOf(NodeGrant g) {
        return g.gang == null ? null : requests.get(g.gang.requestId);
    }

    Collection<Pool> pools() {
        List<Pool> out = new ArrayList<>();
        for (PoolBook b : pools.values()) {
            out.add(b.pool);
        }
        return out;
    }

    Collection<Node> nodes(PoolId pool) {
        return List.copyOf(book(pool).nodes.values());
    }

    /** Every open request (not closed or revoked), in filing order. */
    List<MarketRequest> openRequests() {
        List<MarketRequest> out = new ArrayList<>(requests.values());
        out.sort(Comparator.comparingLong(r -> r.sequence));
        return out;
    }

    /** Every live grant (not ended), in grant order. */
    List<NodeGrant> liveGrants() {
        List<NodeGrant> out = new ArrayList<>();
        for (NodeGrant g : grants.values()) {
            if (g.endsAt == null) {
                out.add(g);
            }
        }
        return out;
    }

    /** A tenant's open ledger entries as they stand at the last tick, in grant order. */
    List<Charge> openEntries(String tenantId) {
        List<Charge> out = new ArrayList<>();
        for (NodeGrant g : grants.values()) {
            if (g.entryFrom != EpochNanos.NONE && g.billedUntil > g.entryFrom && g.cluster.tenant.id.equals(tenantId)) {
                out.add(new Charge(g.id, EpochNanos.instant(g.entryFrom), EpochNanos.instant(g.billedUntil), tenantId,
                        g.cluster.id, g.pool, g.nodeId, Money.ofMicros(g.entryRate), g.gpus,
                        Money.ofMicros(g.entryAccrued), g.entryLocked));
            }
        }
        return out;
    }
}
