package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The GPU market: pools, tenants and their clusters, requests, node grants, and the tick that clears
 * every pool (MARKET.md, "One tick"). It is a plain mutable aggregate with no clock: every call takes
 * the instant it happens at, and the same calls in the same order give the same outcome.
 *
 * <p>Inputs are the calls below (supply and accounts, demand, node facts, the tick); outputs are
 * values: {@link TickOutcome} (feed, events, charges, pool failures) and the events an input between
 * ticks causes. {@link #tick} is read as the steps of MARKET.md: notices and idle nodes due, billing
 * ({@link Billing}), nodes drained, queues, then each pool's clearing ({@link PoolClearing}). The
 * whole state as values is {@link #snapshot()} ({@link MarketSnapshotCodec}).
 */
public final class Market {
    private MarketTimings timings;
    final Map<PoolId, PoolBook> pools = new TreeMap<>();
    final Map<String, Tenant> tenants = new LinkedHashMap<>();
    final Map<String, TenantCluster> clusters = new LinkedHashMap<>();
    final Map<String, Node> nodes = new HashMap<>();
    final Map<String, MarketRequest> openByJob = new HashMap<>();
    final Map<String, MarketRequest> requests = new HashMap<>();
    final LinkedHashMap<String, NodeGrant> grants = new LinkedHashMap<>();
    final LinkedHashSet<NodeGrant> idleGrants = new LinkedHashSet<>();
    /** Events of calls between ticks (filing, removals), published with the next tick's. */
    final List<MarketEvent> betweenTicks = new ArrayList<>();
    /**
     * The requests filed, changed or gone since the changes were last cleared, by identity ({@link #changes()}),
     * recorded by a market restored from a snapshot only: one built call by call (a simulation, the
     * benchmark) is never persisted and keeps no such record.
     */
    final Set<MarketRequest> touched = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The grants made, changed (other than by billing) or dropped since then, recorded the same way. */
    final Set<NodeGrant> touchedGrants = Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * The grants whose billing cursor moved since then in a way a restore cannot work out (their entry opened,
     * closed for good, or was cut short by the balance; {@link Billing}): every tick bills every ready grant,
     * and only these need saving.
     */
    final Set<NodeGrant> billedGrants = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The nodes added, changed or removed since then, recorded the same way. */
    final Set<Node> touchedNodes = Collections.newSetFromMap(new IdentityHashMap<>());
    boolean tracking;
    long sequence;
    long grantSequence;
    Instant lastTick;
    private final PoolClearing clearing = new PoolClearing(this);
    private final ClusterQueues queues = new ClusterQueues(this);
    /** The running tick's billing, so a grant ended inside the tick closes its ledger entry in it. */
    private Billing billing;
    private long clearingFailures;

    public Market(MarketTimings timings) {
        this.timings = timings;
    }

    public Market() {
        this(MarketTimings.standard());
    }

    public MarketTimings timings() {
        return timings;
    }

    /**
     * The operator's catalog changed the market's durations. They apply from the next decision on: grants
     * already made keep the hold and window they were given.
     */
    public void changeTimings(MarketTimings newTimings) {
        this.timings = java.util.Objects.requireNonNull(newTimings);
    }

    // ---------------------------------------------------------------- supply and accounts

    public void addPool(PoolId id, int gpusPerNode, Money reserve) {
        if (pools.containsKey(id)) {
            throw new DomainException(ErrorCode.CONFLICT, "pool " + id + " exists", Map.of("pool", id.toString()));
        }
        pools.put(id, new PoolBook(new Pool(id, gpusPerNode, reserve)));
    }

    public void changeReserve(PoolId id, Money reserve) {
        PoolBook b = book(id);
        b.pool = b.pool.withReserve(reserve);
    }

    public void addNode(String nodeId, PoolId poolId) {
        PoolBook b = book(poolId);
        if (nodes.containsKey(nodeId)) {
            throw new DomainException(ErrorCode.CONFLICT, "node " + nodeId + " exists", Map.of("node", nodeId));
        }
        Node node = new Node(nodeId, poolId);
        nodes.put(nodeId, node);
        touch(node);
        b.nodes.put(nodeId, node);
        b.free.put(nodeId, node);
        b.supply++;
    }

    /**
     * The operator removes a node for good (or, live, a granted node left its cluster). A gang on it
     * ends: Failed=True (MarketRevoked), its other nodes released (they drain), its job requeued as a
     * new request at its current limit. No replacement is owed: only a health-check cordon owes one.
     * The events come out with the next tick's.
     */
    public void removeNode(String nodeId, Instant at) {
        Node node = node(nodeId);
        PoolBook b = book(node.pool);
        NodeGrant g = node.grant;
        if (g != null) {
            MarketRequest r = g.request;
            detachFromRequest(g);
            endGrant(g, at, null, false);
            if (r != null) {
                revoke(r, at, betweenTicks, true, "granted node " + nodeId + " left the cluster; the job requeues");
            }
        }
        boolean supplied = supplies(node);
        touch(node);
        b.free.remove(nodeId);
        b.nodes.remove(nodeId);
        b.draining.remove(node);
        node.drainingUntil = null;
        if (supplied) {
            b.supply--;
        }
        if (node.block != null) {
            unseatBlockNode(node);
            node.block.blockNodes.remove(nodeId);
        }
        nodes.remove(nodeId);
    }

    public void addTenant(String tenantId, Money credits) {
        if (tenants.containsKey(tenantId)) {
            throw new DomainException(ErrorCode.CONFLICT, "tenant " + tenantId + " exists", Map.of("tenant", tenantId));
        }
        tenants.put(tenantId, new Tenant(tenantId, tenants.size(), credits.micros()));
    }

    public void credit(String tenantId, Money amount) {
        Tenant t = tenant(tenantId);
        t.credits = Math.addExact(t.credits, amount.micros());
    }

    public void addCluster(String clusterId, String tenantId, long maxGpus, Money limit) {
        if (clusters.containsKey(clusterId)) {
            throw new DomainException(ErrorCode.CONFLICT, "cluster " + clusterId + " exists",
                    Map.of("cluster", clusterId));
        }
        LimitPriceWritePolicy.checkInRange(limit);
        clusters.put(clusterId, new TenantCluster(clusterId, tenant(tenantId), clusters.size(), maxGpus, limit));
    }

    /** Moves a free node into a cluster's base load block: out of market supply. */
    public void assignBlock(String clusterId, String nodeId) {
        TenantCluster c = cluster(clusterId);
        Node node = node(nodeId);
        if (node.grant != null || node.block != null || node.drainingUntil != null) {
            throw new DomainException(ErrorCode.INVALID_STATE, "node " + nodeId + " is not free",
                    Map.of("node", nodeId));
        }
        PoolBook b = book(node.pool);
        b.free.remove(nodeId);
        if (node.inService) {
            b.supply--;
        }
        node.block = c;
        touch(node);
        c.blockNodes.put(nodeId, node);
    }

    /**
     * The operator changes a cluster's max cluster size and packing. A larger size files queued requests
     * at once; a smaller one never takes back what is filed (only new filings wait).
     */
    public void changeCluster(String clusterId, long maxGpus, boolean packing, Instant at) {
        if (maxGpus < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a max cluster size is never negative",
                    Map.of("maxGpus", maxGpus));
        }
        TenantCluster c = cluster(clusterId);
        c.maxGpus = maxGpus;
        c.packing = packing;
        queues.admit(c, at, betweenTicks);
    }

    /**
     * Sizes a cluster's base load block in a pool to {@code count} nodes: free nodes join it (in id
     * order), unseated block nodes leave it back to supply. All or nothing.
     *
     * @throws DomainException INVALID_STATE when not enough nodes are free, or too many block nodes hold
     *                         seated requests to shrink
     */
    public void sizeBlock(String clusterId, PoolId poolId, int count) {
        TenantCluster c = cluster(clusterId);
        PoolBook b = book(poolId);
        if (count < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a block holds zero or more nodes",
                    Map.of("nodes", count));
        }
        List<Node> inPool = new ArrayList<>();
        for (Node n : c.blockNodes.values()) {
            if (n.pool.equals(poolId)) {
                inPool.add(n);
            }
        }
        if (count > inPool.size()) {
            List<String> free = new ArrayList<>(new java.util.TreeSet<>(b.free.keySet()));
            int more = count - inPool.size();
            if (free.size() < more) {
                throw new DomainException(ErrorCode.INVALID_STATE, "pool " + poolId + " has " + free.size()
                        + " free nodes; the block needs " + more + " more",
                        Map.of("pool", poolId.toString(), "free", free.size(), "needed", more));
            }
            for (int i = 0; i < more; i++) {
                assignBlock(clusterId, free.get(i));
            }
        } else if (count < inPool.size()) {
            List<Node> unseated = new ArrayList<>();
            for (Node n : inPool) {
                if (n.seatedGpus == 0) {
                    unseated.add(n);
                }
            }
            int fewer = inPool.size() - count;
            if (unseated.size() < fewer) {
                throw new DomainException(ErrorCode.INVALID_STATE, "only " + unseated.size()
                        + " block nodes hold no seated request; the block cannot shrink by " + fewer,
                        Map.of("pool", poolId.toString(), "unseated", unseated.size(), "fewer", fewer));
            }
            for (int i = unseated.size() - 1; i >= unseated.size() - fewer; i--) {
                Node n = unseated.get(i);
                c.blockNodes.remove(n.id);
                n.block = null;
                touch(n);
                if (n.inService) {
                    b.free.put(n.id, n);
                    b.supply++;
                }
            }
        }
    }

    /**
     * Takes a cluster out of the market. Only an empty cluster leaves: no open request and no grant
     * (its limit withdrawn, its jobs ended, its idle nodes returned), so the book is never left with
     * requests or grants of a cluster it no longer knows. Its block nodes return to supply.
     *
     * @throws DomainException INVALID_STATE naming what it still holds
     */
    public void removeCluster(String clusterId) {
        TenantCluster c = cluster(clusterId);
        int open = 0;
        for (MarketRequest r : requests.values()) {
            if (r.cluster == c) {
                open++;
            }
        }
        int held = 0;
        for (NodeGrant g : grants.values()) {
            if (g.cluster == c) {
                held++;
            }
        }
        int seated = 0;
        for (Node n : c.blockNodes.values()) {
            seated += n.seatedGpus;
        }
        if (open > 0 || held > 0 || seated > 0) {
            throw new DomainException(ErrorCode.INVALID_STATE, "cluster " + clusterId + " still has " + open
                    + " open requests and " + held + " node grants; it leaves the market once they are done",
                    Map.of("cluster", clusterId, "openRequests", open, "grants", held));
        }
        for (Node n : new ArrayList<>(c.blockNodes.values())) {
            sizeBlock(clusterId, n.pool, 0);
        }
        for (Node n : nodes.values()) {
            if (n.lostGrant != null && n.lostGrant.cluster == c) {
                n.lostGrant = null;
                touch(n);
            }
        }
        clusters.remove(clusterId);
    }

    /** Sets (or with null withdraws) a cluster's limit price. The reserve check is the caller's. */
    public void setClusterLimit(String clusterId, Money limit) {
        LimitPriceWritePolicy.checkInRange(limit);
        cluster(clusterId).setLimit(limit);
    }

    /** {@link #setClusterLimit(String, Money)}, noting when, for the limit price read's {@code updated_at}. */
    public void setClusterLimit(String clusterId, Money limit, Instant at) {
        setClusterLimit(clusterId, limit);
        cluster(clusterId).limitSetAt = at;
    }

    /** Sets (or with null removes) a job's own limit price label; read at the next tick. */
    public void setJobLimit(String jobId, Money limit) {
        LimitPriceWritePolicy.checkInRange(limit);
        MarketRequest r = openRequest(jobId);
        r.setJobLimit(limit);
        touch(r);
        if (r.phase.filed()) {
            book(r.pool).jobLimitChanged(r);
        }
    }

    /**
     * Changes an open request's priority class (its job's label changed). It orders only the cluster's own
     * queue and who takes the base load block's GPUs next, both read afresh at every tick, so a request
     * already filed keeps its market position: priority never buys one.
     *
     * @return whether it changed
     */
    public boolean setJobPriority(String jobId, PriorityClass priority) {
        MarketRequest r = openRequest(jobId);
        PriorityClass next = priority == null ? PriorityClass.NONE : priority;
        if (r.priority == next) {
            return false;
        }
        r.priority = next;
        touch(r);
        return true;
    }

    // ---------------------------------------------------------------- demand

    /**
     * Files a job's request: whole nodes go to the cluster's queue and file with the market at once
     * while the max cluster size allows; a request under one node waits for the base load block.
     *
     * @throws DomainException INVALID_INPUT when the GPUs are neither under one node nor whole nodes
     *                         (reason JobSizeNotNodeAligned), CONFLICT when the job has an open request
     */
    public MarketRequest file(JobDemand demand, Instant at) {
        TenantCluster c = cluster(demand.clusterId());
        PoolBook b = book(demand.pool());
        if (openByJob.containsKey(demand.jobId())) {
            throw new DomainException(ErrorCode.CONFLICT, "job " + demand.jobId() + " has an open request",
                    Map.of("jobId", demand.jobId()));
        }
        int perNode = b.pool.gpusPerNode();
        int nodeCount;
        if (demand.gpus() < perNode) {
            nodeCount = 0;
        } else if (demand.gpus() % perNode == 0) {
            nodeCount = demand.gpus() / perNode;
        } else {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a job larger than one node requests whole nodes: "
                    + demand.gpus() + " GPUs is not a multiple of " + perNode,
                    Map.of("reason", "JobSizeNotNodeAligned", "gpus", demand.gpus(), "gpusPerNode", perNode));
        }
        MarketRequest r = newRequest(demand.jobId(), 1, c, demand.pool(), demand.gpus(), nodeCount,
                demand.priority(), at, demand.jobLimit());
        queues.admit(c, at, betweenTicks);
        return r;
    }

    /** The job ended or was deleted: a gang's nodes stay with the cluster as idle nodes (hold, idle grace). */
    public void endJob(String jobId, Instant at) {
        MarketRequest r = openRequest(jobId);
        close(r, at);
    }

    // ---------------------------------------------------------------- node facts

    /**
     * A granted node is ready in its cluster: its minimum hold and protection window start now (a
     * replacement keeps what remains of the one it replaces), and it bills from now. When every node
     * of its gang is ready the gang is Provisioned=True. Idempotent; a node with no grant is ignored.
     *
     * @return the events this caused (the gang's reason, {@link MarketEvent.GangProvisioned}), to be
     *         applied at once: a job starts when its gang is provisioned
     */
    public List<MarketEvent> nodeReady(String nodeId, Instant at) {
        NodeGrant g = node(nodeId).grant;
        if (g == null || g.ready()) {
            return List.of();
        }
        g.readyAt = at;
        g.billedUntil = EpochNanos.of(at);
        if (g.protectedUntil() == null) {
            g.anchor(at.plus(timings.minimumHold()), at.plus(timings.protection()));
        }
        touch(g);
        MarketRequest r = g.request;
        if (r == null) {
            return List.of();
        }
        if (r.protectedUntil == null) {
            r.window(g.protectedUntil());
            touch(r);
        }
        List<MarketEvent> events = new ArrayList<>();
        if (r.phase == RequestPhase.ADMITTED) {
            provisioningReason(r, at, events);
        }
        return events;
    }

    /**
     * Health checks cordoned a node: its grant stops billing now and, while protected, the cluster is
     * owed a replacement at the locked rate.
     */
    public void nodeOutOfService(String nodeId, Instant at) {
        Node node = node(nodeId);
        if (!node.inService) {
            return;
        }
        PoolBook b = book(node.pool);
        boolean supplied = supplies(node);
        node.inService = false;
        touch(node);
        b.free.remove(nodeId);
        b.draining.remove(node);
        node.drainingUntil = null;
        if (supplied) {
            b.supply--;
        }
        if (node.block != null) {
            unseatBlockNode(node);
        }
        NodeGrant g = node.grant;
        if (g != null) {
            detachFromRequest(g);
            endGrant(g, at, null, false);
            node.lostGrant = g;
            if (ReplacementPolicy.owed(at, g.protectedUntil())) {
                g.cluster.claims.computeIfAbsent(node.pool, p -> new ArrayDeque<>()).add(new ReplacementClaim(
                        g.cluster.id, node.pool, g.lockedRate, g.holdUntil(), g.protectedUntil(), nodeId));
            }
        }
    }

    /** Health checks cleared a node: back in service, as idle capacity of the cluster that lost it. */
    public void nodeBack(String nodeId, Instant at) {
        Node node = node(nodeId);
        if (node.inService) {
            return;
        }
        PoolBook b = book(node.pool);
        node.inService = true;
        touch(node);
        if (node.block != null) {
            return;
        }
        b.supply++;
        NodeGrant lost = node.lostGrant;
        node.lostGrant = null;
        if (lost == null || !clusters.containsKey(lost.cluster.id)) {
            b.free.put(nodeId, node);
            return;
        }
        ArrayDeque<ReplacementClaim> claims = lost.cluster.claims.get(node.pool);
        if (claims != null) {
            claims.removeIf(c -> c.failedNodeId().equals(nodeId));
        }
        NodeGrant g = new NodeGrant("g" + (++grantSequence), node, lost.cluster, b.pool.gpusPerNode(),
                lost.lockedRate, at, lost.holdUntil(), lost.protectedUntil(), false);
        g.marketRate = lost.marketRate;
        g.lockedInForce = lost.lockedInForce;
        // the node is back in the cluster it left: ready as it returns
        g.readyAt = at;
        g.billedUntil = EpochNanos.of(at);
        if (g.protectedUntil() == null) {
            g.anchor(at.plus(timings.minimumHold()), at.plus(timings.protection()));
        }
        node.grant = g;
        grants.put(g.id, g);
        touch(g);
        b.granted++;
        makeIdle(g, at, b);
    }

    // ---------------------------------------------------------------- the tick

    /**
     * Runs one tick over every pool at {@code now} (MARKET.md, "One tick"). A pool whose clearing
     * fails is left as it stands and reported in {@link TickOutcome#failures()}; the others clear.
     */
    public TickOutcome tick(Instant now) {
        if (lastTick != null && now.isBefore(lastTick)) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a tick never goes back in time",
                    Map.of("now", now.toString(), "lastTick", lastTick.toString()));
        }
        List<MarketEvent> events = new ArrayList<>(betweenTicks);
        betweenTicks.clear();
        // a price that moves closes the entry of every grant it bills, so room for one per grant
        Billing bills = new Billing(this, grants.size() + 16, tenants.size());
        billing = bills;
        List<PoolTick> feed = new ArrayList<>(pools.size());
        List<PoolFailure> failures = new ArrayList<>();
        try {
            expireNotices(now, events);
            releaseIdle(now, events);
            bills.bill(grants, now);
            releaseIdleOfRunOutTenants(now, events, bills);
            releaseDrained(now);
            long[] runningCost = bills.runningCost();
            for (TenantCluster c : clusters.values()) {
                queues.admit(c, now, events);
                if (!c.blockWaiting.isEmpty()) {
                    queues.packBlock(c, now, events);
                }
            }
            for (PoolBook b : pools.values()) {
                try {
                    feed.add(clearing.clear(b, now, runningCost, events));
                } catch (RuntimeException e) {
                    clearingFailures++;
                    failures.add(new PoolFailure(b.pool.id(), String.valueOf(e)));
                }
            }
        } finally {
            billing = null;
        }
        lastTick = now;
        return new TickOutcome(now, Collections.unmodifiableList(feed), Collections.unmodifiableList(events),
                Collections.unmodifiableList(bills.charges()), List.copyOf(failures));
    }

    /** How many pool clearings failed since this market was built or restored. */
    public long clearingFailures() {
        return clearingFailures;
    }

    /** Notices that ran out: the gang is revoked; its pods had the notice as their grace, so no drain. */
    private void expireNotices(Instant now, List<MarketEvent> events) {
        for (PoolBook b : pools.values()) {
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

    private void releaseIdle(Instant now, List<MarketEvent> events) {
        Iterator<NodeGrant> it = idleGrants.iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            Instant releaseAt = IdleGracePolicy.releaseAt(g.holdUntil(), g.idleSince, timings);
            if (!now.isBefore(releaseAt)) {
                it.remove();
                removeFromIdleQueue(g);
                endGrant(g, releaseAt, events, false);
            }
        }
    }

    /** A tenant whose balance ran out keeps no idle node: it would bill what the tenant does not have. */
    private void releaseIdleOfRunOutTenants(Instant now, List<MarketEvent> events, Billing bills) {
        Iterator<NodeGrant> it = idleGrants.iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            if (BalanceCheckPolicy.ranOut(g.cluster.tenant.balanceMicros())) {
                it.remove();
                removeFromIdleQueue(g);
                bills.endingAfterBilling(g);
                endGrant(g, now, events, false);
            }
        }
    }

    /** Nodes whose eviction grace has passed return to supply. */
    private void releaseDrained(Instant now) {
        for (PoolBook b : pools.values()) {
            if (b.draining.isEmpty()) {
                continue;
            }
            Iterator<Node> it = b.draining.iterator();
            while (it.hasNext()) {
                Node node = it.next();
                if (DrainPolicy.drained(now, node.drainingUntil)) {
                    it.remove();
                    node.drainingUntil = null;
                    touch(node);
                    b.free.put(node.id, node);
                    b.supply++;
                }
            }
        }
    }

    // ---------------------------------------------------------------- transitions the clearing uses

    /** Grants free or own idle nodes to a gang until it has all it asked for or none are left. */
    void grantNodes(MarketRequest r, PoolBook b, Money price, long limit, Instant now, List<MarketEvent> events) {
        ArrayDeque<NodeGrant> idle = b.idle.isEmpty() ? null : b.idle.get(r.cluster);
        while (r.grants.size() < r.nodes) {
            Node node;
            if (idle != null && !idle.isEmpty()) {
                NodeGrant old = idle.pollFirst();
                idleGrants.remove(old);
                if (idle.isEmpty()) {
                    b.idle.remove(r.cluster);
                }
                old.endsAt = now;
                touch(old);
                if (billing != null && EpochNanos.of(now) == old.billedUntil) {
                    billing.close(old);
                }
                old.node.grant = null;
                b.granted--;
                node = old.node;
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
        NodeGrant g = claim != null
                ? new NodeGrant("g" + (++grantSequence), node, r.cluster, b.pool.gpusPerNode(), claim.lockedRate(), now,
                        claim.holdUntil(), claim.protectedUntil(), true)
                : new NodeGrant("g" + (++grantSequence), node, r.cluster, b.pool.gpusPerNode(), r.lockedRate, now,
                        null, null, false);
        if (first) {
            r.window(g.protectedUntil());
            r.marketRate = Math.min(g.lockedRate.micros(), limit);
            r.lockedInForce = true;
            r.startLimit = limit;
        }
        g.request = r;
        node.grant = g;
        r.grants.add(g);
        touch(r);
        grants.put(g.id, g);
        touch(g);
        b.granted++;
        events.add(new MarketEvent.NodeGranted(now, r.id, r.jobId, r.cluster.id, b.pool.id(), node.id, g.id,
                g.lockedRate, g.protectedUntil(), g.replacement));
    }

    /**
     * A gang's reason while it holds nodes and is not under notice: {@code Provisioning (k of N granted
     * nodes ready)} until every node is ready, then Provisioned=True (which stays when a node is later
     * taken out of service).
     */
    void provisioningReason(MarketRequest r, Instant at, List<MarketEvent> events) {
        if (!r.provisioned && r.readyNodes() == r.nodes) {
            r.provisioned = true;
            touch(r);
            events.add(new MarketEvent.GangProvisioned(at, r.id, r.jobId, r.cluster.id, r.pool, r.nodes,
                    r.lockedRate));
        }
        if (r.provisioned) {
            if (r.reason != Reason.PROVISIONED) {
                setReason(r, Reason.PROVISIONED, "all " + r.nodes + " granted nodes ready", at, events);
            }
            return;
        }
        String message = "Provisioning (" + r.readyNodes() + " of " + r.nodes + " granted nodes ready)";
        if (r.reason != Reason.PROVISIONING || !message.equals(r.message)) {
            setReason(r, Reason.PROVISIONING, message, at, events);
        }
    }

    /**
     * Failed=True (MarketRevoked): the gang's nodes are released (draining when its pods were running
     * and got no notice), and its job continues as a new request at its current limit.
     */
    void revoke(MarketRequest r, Instant at, List<MarketEvent> events, boolean drain, String message) {
        for (NodeGrant g : r.grants) {
            g.detach();
            touch(g);
            endGrant(g, at, events, drain);
        }
        r.grants.clear();
        r.phase = RequestPhase.REVOKED;
        touch(r);
        book(r.pool).markGone(r);
        r.noticeDeadline = null;
        r.cluster.usedGpus -= r.gpus;
        setReason(r, Reason.MARKET_REVOKED, message, at, events);
        requests.remove(r.id);
        openByJob.remove(r.jobId);
        MarketRequest next = newRequest(r.jobId, r.attempt + 1, r.cluster, r.pool, r.gpus, r.nodes, r.priority, at,
                r.jobLimit);
        events.add(new MarketEvent.GangRevoked(at, r.id, r.jobId, r.cluster.id, next.id));
        queues.admit(r.cluster, at, events);
    }

    void setReason(MarketRequest r, Reason reason, String message, Instant at, List<MarketEvent> events) {
        r.reason = reason;
        r.message = message;
        touch(r);
        events.add(new MarketEvent.ReasonChanged(at, r.id, r.jobId, r.cluster.id, reason, message));
    }

    // ---------------------------------------------------------------- transitions

    /** Whether a node counts as supply: in service, on the market, not draining. */
    private static boolean supplies(Node node) {
        return node.inService && node.block == null && node.drainingUntil == null;
    }

    private MarketRequest newRequest(String jobId, int attempt, TenantCluster c, PoolId pool, int gpus, int nodeCount,
                                     PriorityClass priority, Instant at, Money jobLimit) {
        String id = attempt == 1 ? jobId : jobId + "#" + attempt;
        MarketRequest r = new MarketRequest(id, jobId, attempt, c, pool, gpus, nodeCount, priority, ++sequence, at,
                jobLimit);
        r.phase = RequestPhase.QUEUED;
        touch(r);
        requests.put(id, r);
        openByJob.put(jobId, r);
        if (nodeCount == 0) {
            c.blockWaiting.add(r);
        } else {
            c.queue.add(r);
        }
        return r;
    }

    private void close(MarketRequest r, Instant at) {
        switch (r.phase) {
            case QUEUED -> {
                r.cluster.queue.remove(r);
                r.cluster.blockWaiting.remove(r);
            }
            case WAITING -> r.cluster.usedGpus -= r.gpus;
            case ADMITTED -> {
                r.cluster.usedGpus -= r.gpus;
                PoolBook b = book(r.pool);
                for (NodeGrant g : r.grants) {
                    g.detach();
                    touch(g);
                    makeIdle(g, at, b);
                }
            }
            case RECLAIMING -> {
                r.cluster.usedGpus -= r.gpus;
                for (NodeGrant g : r.grants) {
                    g.detach();
                    touch(g);
                    endGrant(g, at, null, false);
                }
            }
            case SEATED -> {
                r.blockNode.seatedGpus -= r.gpus;
                touch(r.blockNode);
            }
            default -> {
            }
        }
        r.grants.clear();
        boolean wasFiled = r.phase.filed();
        r.phase = RequestPhase.CLOSED;
        touch(r);
        if (wasFiled) {
            book(r.pool).markGone(r);
        }
        requests.remove(r.id);
        openByJob.remove(r.jobId);
    }

    private void makeIdle(NodeGrant g, Instant at, PoolBook b) {
        g.idleSince = at;
        touch(g);
        b.idle.computeIfAbsent(g.cluster, c -> new ArrayDeque<>()).add(g);
        idleGrants.add(g);
    }

    private void removeFromIdleQueue(NodeGrant g) {
        PoolBook b = book(g.node.pool);
        ArrayDeque<NodeGrant> q = b.idle.get(g.cluster);
        if (q != null) {
            q.remove(g);
            if (q.isEmpty()) {
                b.idle.remove(g.cluster);
            }
        }
    }

    private void detachFromRequest(NodeGrant g) {
        if (g.request != null) {
            g.request.grants.remove(g);
            touch(g.request);
            g.detach();
            touch(g);
        }
        if (g.idleSince != null && idleGrants.remove(g)) {
            removeFromIdleQueue(g);
        }
    }

    /**
     * Ends a grant at {@code at}: billing stops there, and the node returns to supply if it can, at
     * once or after draining ({@link DrainPolicy}).
     */
    private void endGrant(NodeGrant g, Instant at, List<MarketEvent> events, boolean podsRunning) {
        g.endsAt = at;
        touch(g);
        if (billing != null && EpochNanos.of(at) == g.billedUntil) {
            billing.close(g);
        }
        Node node = g.node;
        if (node.grant != g) {
            return;
        }
        node.grant = null;
        PoolBook b = book(node.pool);
        b.granted--;
        if (!node.inService || node.block != null || !nodes.containsKey(node.id)) {
            return;
        }
        Instant drainsUntil = DrainPolicy.drainsUntil(at, podsRunning, timings);
        if (drainsUntil != null) {
            node.drainingUntil = drainsUntil;
            touch(node);
            b.supply--;
            b.draining.add(node);
        } else {
            b.free.put(node.id, node);
        }
        if (events != null) {
            events.add(new MarketEvent.NodeReleased(at, node.id, g.cluster.id, node.pool));
        }
    }

    private void unseatBlockNode(Node node) {
        TenantCluster c = node.block;
        for (MarketRequest r : new ArrayList<>(requests.values())) {
            if (r.phase == RequestPhase.SEATED && r.blockNode == node) {
                r.blockNode = null;
                r.phase = RequestPhase.QUEUED;
                r.reason = Reason.PENDING;
                touch(r);
                c.blockWaiting.add(r);
            }
        }
        node.seatedGpus = 0;
        touch(node);
    }

    // ---------------------------------------------------------------- snapshot

    /** Records that a request was filed, changed or left the market, for {@link #changes()}. */
    void touch(MarketRequest r) {
        if (tracking) {
            touched.add(r);
        }
    }

    /** Records that a grant was made, changed other than by billing, or dropped, for {@link #changes()}. */
    void touch(NodeGrant g) {
        if (tracking) {
            touchedGrants.add(g);
        }
    }

    /** Records that billing moved a grant's cursor past what a restore works out, for {@link #changes()}. */
    void billed(NodeGrant g) {
        if (tracking) {
            billedGrants.add(g);
        }
    }

    /** Records that a node was added, changed or removed, for {@link #changes()}. */
    void touch(Node n) {
        if (tracking) {
            touchedNodes.add(n);
        }
    }

    /**
     * What changed since this market was restored or its changes were last cleared ({@link MarketChanges}):
     * what a persistence adapter writes instead of comparing whole snapshots.
     *
     * @throws DomainException INVALID_STATE on a market not restored from a snapshot (it records nothing)
     */
    public MarketChanges changes() {
        if (!tracking) {
            throw new DomainException(ErrorCode.INVALID_STATE, "only a market restored from a snapshot records its changes");
        }
        return MarketSnapshotCodec.changes(this);
    }

    /** The changes of {@link #changes()} are stored: record from here on. */
    public void clearChanges() {
        touched.clear();
        touchedGrants.clear();
        billedGrants.clear();
        touchedNodes.clear();
    }

    /** The market's whole state as values (see {@link MarketSnapshot}). */
    public MarketSnapshot snapshot() {
        return MarketSnapshotCodec.encode(this);
    }

    /** Rebuilds a market from a snapshot; it then decides exactly as the market the snapshot was taken of. */
    public static Market restore(MarketSnapshot s) {
        return MarketSnapshotCodec.decode(s);
    }

    // ---------------------------------------------------------------- reads

    public Pool pool(PoolId id) {
        return book(id).pool;
    }

    public Collection<Pool> pools() {
        List<Pool> out = new ArrayList<>();
        for (PoolBook b : pools.values()) {
            out.add(b.pool);
        }
        return out;
    }

    public int supply(PoolId id) {
        return book(id).supply;
    }

    public int freeNodes(PoolId id) {
        return book(id).free.size();
    }

    /** The last tick's clearing price of a pool, null when nothing cleared. */
    public Money lastPrice(PoolId id) {
        return book(id).lastPrice;
    }

    public Tenant tenant(String id) {
        Tenant t = tenants.get(id);
        if (t == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no tenant " + id, Map.of("tenant", id));
        }
        return t;
    }

    public boolean hasTenant(String id) {
        return tenants.containsKey(id);
    }

    public boolean hasCluster(String id) {
        return clusters.containsKey(id);
    }

    public TenantCluster cluster(String id) {
        TenantCluster c = clusters.get(id);
        if (c == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no cluster " + id, Map.of("cluster", id));
        }
        return c;
    }

    public Collection<TenantCluster> clusters() {
        return List.copyOf(clusters.values());
    }

    public Node node(String id) {
        Node n = nodes.get(id);
        if (n == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no node " + id, Map.of("node", id));
        }
        return n;
    }

    public Collection<Node> nodes(PoolId pool) {
        return List.copyOf(book(pool).nodes.values());
    }

    /** The open request of a job (the latest attempt), or NOT_FOUND. */
    public MarketRequest openRequest(String jobId) {
        MarketRequest r = openByJob.get(jobId);
        if (r == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "job " + jobId + " has no open request",
                    Map.of("jobId", jobId));
        }
        return r;
    }

    public boolean hasOpenRequest(String jobId) {
        return openByJob.containsKey(jobId);
    }

    /** Every open request (not closed or revoked), in filing order. */
    public List<MarketRequest> openRequests() {
        List<MarketRequest> out = new ArrayList<>(requests.values());
        out.sort(java.util.Comparator.comparingLong(r -> r.sequence));
        return out;
    }

    /** Every live grant (not ended), in grant order. */
    public List<NodeGrant> liveGrants() {
        List<NodeGrant> out = new ArrayList<>();
        for (NodeGrant g : grants.values()) {
            if (g.endsAt == null) {
                out.add(g);
            }
        }
        return out;
    }

    /**
     * A tenant's open ledger entries as they stand at the last tick, in grant order: what each of its grants
     * accrued since its entry opened. Its balance counts them already; the ledger gets each when it closes
     * (its rate changes, its grant ends, or its billing period ends).
     */
    public List<Charge> openEntries(String tenantId) {
        List<Charge> out = new ArrayList<>();
        for (NodeGrant g : grants.values()) {
            if (g.entryFrom != EpochNanos.NONE && g.billedUntil > g.entryFrom && g.cluster.tenant.id.equals(tenantId)) {
                out.add(new Charge(g.id, EpochNanos.instant(g.entryFrom), EpochNanos.instant(g.billedUntil), tenantId,
                        g.cluster.id, g.node.pool, g.node.id, Money.ofMicros(g.entryRate), g.gpus,
                        Money.ofMicros(g.entryAccrued), g.entryLocked));
            }
        }
        return out;
    }

    public Instant lastTick() {
        return lastTick;
    }

    PoolBook book(PoolId id) {
        PoolBook b = pools.get(id);
        if (b == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no pool " + id, Map.of("pool", String.valueOf(id)));
        }
        return b;
    }
}
