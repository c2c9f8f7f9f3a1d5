package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The GPU market: pools, tenants and their clusters, requests, node grants, and the tick that clears
 * every pool (MARKET.md, "One tick"). It is a plain mutable aggregate with no clock: every call takes
 * the instant it happens at, and the same calls in the same order give the same outcome.
 */
public final class Market {
    private final MarketTimings timings;
    private final Map<PoolId, PoolBook> pools = new TreeMap<>();
    private final Map<String, Tenant> tenants = new LinkedHashMap<>();
    private final Map<String, TenantCluster> clusters = new LinkedHashMap<>();
    private final Map<String, Node> nodes = new HashMap<>();
    private final Map<String, MarketRequest> openByJob = new HashMap<>();
    private final Map<String, MarketRequest> requests = new HashMap<>();
    private final LinkedHashMap<String, NodeGrant> grants = new LinkedHashMap<>();
    private final LinkedHashSet<NodeGrant> idleGrants = new LinkedHashSet<>();
    /** The running tick's charges, so a grant ended inside the tick closes its ledger entry in it. */
    private List<Charge> tickCharges;
    /** Events of calls between ticks (filing), published with the next tick's. */
    private final List<MarketEvent> betweenTicks = new ArrayList<>();
    private long sequence;
    private long grantSequence;
    private Instant lastTick;

    public Market(MarketTimings timings) {
        this.timings = timings;
    }

    public Market() {
        this(MarketTimings.standard());
    }

    public MarketTimings timings() {
        return timings;
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
        b.nodes.put(nodeId, node);
        b.free.put(nodeId, node);
        b.supply++;
    }

    /**
     * The operator moves a node out of the pool for good. A grant on it ends now and no replacement
     * is owed (only a node that health checks cordon is replaced).
     */
    public void removeNode(String nodeId, Instant at) {
        Node node = node(nodeId);
        PoolBook b = book(node.pool);
        if (node.grant != null) {
            NodeGrant g = node.grant;
            detachFromRequest(g);
            endGrant(g, at, null);
        }
        if (node.inService && node.block == null) {
            b.supply--;
        }
        b.free.remove(nodeId);
        b.nodes.remove(nodeId);
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
        tenants.put(tenantId, new Tenant(tenantId, credits.micros()));
    }

    public void credit(String tenantId, Money amount) {
        tenant(tenantId).credits += amount.micros();
    }

    public void addCluster(String clusterId, String tenantId, long maxGpus, Money limit) {
        if (clusters.containsKey(clusterId)) {
            throw new DomainException(ErrorCode.CONFLICT, "cluster " + clusterId + " exists",
                    Map.of("cluster", clusterId));
        }
        clusters.put(clusterId, new TenantCluster(clusterId, tenant(tenantId), clusters.size(), maxGpus, limit));
    }

    /** Moves a free node into a cluster's base load block: out of market supply. */
    public void assignBlock(String clusterId, String nodeId) {
        TenantCluster c = cluster(clusterId);
        Node node = node(nodeId);
        if (node.grant != null || node.block != null) {
            throw new DomainException(ErrorCode.INVALID_STATE, "node " + nodeId + " is not free",
                    Map.of("node", nodeId));
        }
        PoolBook b = book(node.pool);
        b.free.remove(nodeId);
        if (node.inService) {
            b.supply--;
        }
        node.block = c;
        c.blockNodes.put(nodeId, node);
    }

    /** Sets (or with null withdraws) a cluster's limit price. The write-time check is the caller's. */
    public void setClusterLimit(String clusterId, Money limit) {
        cluster(clusterId).setLimit(limit);
    }

    /** Sets (or with null removes) a job's own limit price label; read at the next tick. */
    public void setJobLimit(String jobId, Money limit) {
        MarketRequest r = openRequest(jobId);
        r.setJobLimit(limit);
        if (r.phase.filed()) {
            book(r.pool).jobLimitChanged(r);
        }
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
        admitFromQueue(c, at, betweenTicks);
        return r;
    }

    /** The job ended or was deleted: a gang's nodes stay with the cluster as idle nodes (hold, idle grace). */
    public void endJob(String jobId, Instant at) {
        MarketRequest r = openRequest(jobId);
        close(r, at);
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
        node.inService = false;
        b.free.remove(nodeId);
        if (node.block == null) {
            b.supply--;
        } else {
            unseatBlockNode(node);
        }
        NodeGrant g = node.grant;
        if (g != null) {
            detachFromRequest(g);
            endGrant(g, at, null);
            node.lostGrant = g;
            if (ReplacementPolicy.owed(at, g.protectedUntil)) {
                g.cluster.claims.computeIfAbsent(node.pool, p -> new ArrayDeque<>()).add(new ReplacementClaim(
                        g.cluster.id, node.pool, g.lockedRate, g.holdUntil, g.protectedUntil, nodeId));
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
                lost.lockedRate, at, lost.holdUntil, lost.protectedUntil, false);
        g.marketRate = lost.marketRate;
        g.lockedInForce = lost.lockedInForce;
        node.grant = g;
        grants.put(g.id, g);
        b.granted++;
        makeIdle(g, at, b);
    }

    // ---------------------------------------------------------------- the tick

    /** Runs one tick over every pool at {@code now} (MARKET.md, "One tick"). */
    public TickOutcome tick(Instant now) {
        if (lastTick != null && now.isBefore(lastTick)) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a tick never goes back in time",
                    Map.of("now", now.toString(), "lastTick", lastTick.toString()));
        }
        List<MarketEvent> events = new ArrayList<>();
        List<Charge> charges = new ArrayList<>(grants.size() / 8 + 16);
        tickCharges = charges;
        List<PoolTick> feed = new ArrayList<>(pools.size());
        events.addAll(betweenTicks);
        betweenTicks.clear();
        expireNotices(now, events);
        releaseIdle(now, events);
        bill(now, charges);
        computeRunningCost(now);
        for (TenantCluster c : clusters.values()) {
            if (!c.queue.isEmpty()) {
                admitFromQueue(c, now, events);
            }
            if (!c.blockWaiting.isEmpty()) {
                packBlock(c, now, events);
            }
        }
        for (PoolBook b : pools.values()) {
            feed.add(clearPool(b, now, events));
        }
        lastTick = now;
        tickCharges = null;
        return new TickOutcome(now, Collections.unmodifiableList(feed), Collections.unmodifiableList(events),
                Collections.unmodifiableList(charges));
    }

    private void expireNotices(Instant now, List<MarketEvent> events) {
        for (PoolBook b : pools.values()) {
            if (b.reclaiming.isEmpty()) {
                continue;
            }
            for (MarketRequest r : new ArrayList<>(b.reclaiming)) {
                if (r.phase == RequestPhase.RECLAIMING && RescindPolicy.expired(now, r.noticeDeadline)) {
                    revoke(r, r.noticeDeadline, events);
                }
            }
            b.reclaiming.removeIf(r -> r.phase != RequestPhase.RECLAIMING);
        }
    }

    private void releaseIdle(Instant now, List<MarketEvent> events) {
        Iterator<NodeGrant> it = idleGrants.iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            Instant releaseAt = IdleGracePolicy.releaseAt(g.holdUntil, g.idleSince, timings);
            if (!now.isBefore(releaseAt)) {
                it.remove();
                PoolBook b = book(g.node.pool);
                ArrayDeque<NodeGrant> q = b.idle.get(g.cluster);
                q.remove(g);
                if (q.isEmpty()) {
                    b.idle.remove(g.cluster);
                }
                endGrant(g, releaseAt, events);
            }
        }
    }

    /**
     * Accrues every grant up to {@code now} (or its end) into its tenant's charges, exactly, and
     * closes ledger entries: an entry covers one rate and closes when the rate changes, the grant
     * ends, or it reaches the billing period. So the balance is exact at every tick while the ledger
     * gets one entry per grant and period, not one per tick.
     */
    private void bill(Instant now, List<Charge> charges) {
        Iterator<NodeGrant> it = grants.values().iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            boolean ended = g.endsAt != null && !g.endsAt.isAfter(now);
            Instant to = ended ? g.endsAt : now;
            Instant from = g.billedUntil;
            if (to.isAfter(from)) {
                if (g.currentLockedInForce() && from.isBefore(g.protectedUntil)) {
                    Instant lockedEnd = to.isBefore(g.protectedUntil) ? to : g.protectedUntil;
                    accrue(g, lockedEnd, g.lockedRate.micros(), true, charges);
                }
                if (to.isAfter(g.billedUntil)) {
                    accrue(g, to, g.currentMarketRate(), false, charges);
                }
            }
            if (ended) {
                closeEntry(g, charges);
                it.remove();
            }
        }
    }

    /** Accrues [billedUntil, to) at one rate into the grant's open entry. */
    private void accrue(NodeGrant g, Instant to, long rate, boolean locked, List<Charge> charges) {
        if (g.entryFrom != null && (g.entryRate != rate || g.entryLocked != locked)) {
            closeEntry(g, charges);
        }
        if (g.entryFrom == null) {
            g.entryFrom = g.billedUntil;
            g.entryRate = rate;
            g.entryLocked = locked;
            g.entryAccrued = 0;
        }
        long total = BillingPolicy.amount(rate, g.gpus, g.entryFrom, to);
        g.cluster.tenant.charged += total - g.entryAccrued;
        g.entryAccrued = total;
        g.billedUntil = to;
        if (!to.isBefore(g.entryFrom.plus(timings.billingPeriod()))) {
            closeEntry(g, charges);
        }
    }

    private void closeEntry(NodeGrant g, List<Charge> charges) {
        if (g.entryFrom == null) {
            return;
        }
        if (g.billedUntil.isAfter(g.entryFrom)) {
            charges.add(new Charge(g.id, g.entryFrom, g.billedUntil, g.cluster.tenant.id, g.cluster.id, g.node.pool,
                    g.node.id, Money.ofMicros(g.entryRate), g.gpus, Money.ofMicros(g.entryAccrued), g.entryLocked));
        }
        g.entryFrom = null;
        g.entryAccrued = 0;
    }

    private void computeRunningCost(Instant now) {
        for (Tenant t : tenants.values()) {
            t.runningCost = 0;
        }
        for (NodeGrant g : grants.values()) {
            if (g.endsAt == null && g.request != null) {
                long rate = g.currentLockedInForce() && now.isBefore(g.protectedUntil) ? g.lockedRate.micros()
                        : g.currentMarketRate();
                g.cluster.tenant.runningCost += BalanceCheckPolicy.costOver(timings.balanceHorizon(), rate, g.gpus);
            }
        }
    }

    private PoolTick clearPool(PoolBook b, Instant now, List<MarketEvent> events) {
        b.compact();
        List<MarketRequest> rs = b.requests;
        int n = rs.size();
        b.ensureScratch(n);
        long reserve = b.pool.reserve().micros();
        long[] keys = b.keys;
        int[] nodesByIndex = b.nodesAt;
        int[] slots = b.slots;
        int[] holders = b.holders;
        boolean[] accepted = b.accepted;
        Arrays.fill(accepted, 0, n, false);

        Map<TenantCluster, Integer> idleSlot = Map.of();
        int[] idleBySlot = new int[0];
        int idleTotal = 0;
        if (!b.idle.isEmpty()) {
            idleSlot = new HashMap<>();
            idleBySlot = new int[b.idle.size()];
            for (Map.Entry<TenantCluster, ArrayDeque<NodeGrant>> e : b.idle.entrySet()) {
                idleBySlot[idleSlot.size()] = e.getValue().size();
                idleTotal += e.getValue().size();
                idleSlot.put(e.getKey(), idleSlot.size());
            }
        }

        // 1-2. read demand (gated requests get their reason here), set committed supply aside
        int committed = 0;
        int bidders = 0;
        int holderCount = 0;
        int demand = 0;
        int waitingNodes = 0;
        long highestKept = -1;
        byte[] kinds = b.kinds;
        long nowNanos = ProtectionWindowPolicy.epochNanos(now);
        long[] jobLimitAt = b.jobLimitAt;
        TenantCluster[] clusterAt = b.clusterAt;
        byte[] kindAt = b.kindAt;
        int[] gpusAt = b.gpusAt;
        Reason[] reasonAt = b.reasonAt;
        for (int i = 0; i < n; i++) {
            TenantCluster cluster = clusterAt[i];
            long limit = EffectiveLimitPolicy.limit(jobLimitAt[i], cluster.limitMicros);
            int nodeCount = nodesByIndex[i];
            demand += nodeCount;
            Tenant tenant = cluster.tenant;
            long balance = tenant.credits - tenant.charged;
            if (kindAt[i] == PoolBook.HOLDING) {
                MarketRequest r = rs.get(i);
                holders[holderCount++] = i;
                kinds[i] = HOLDER;
                r.tickLimit = limit;
                r.tickGate = null;
                r.tickAccepted = false;
                if (ProtectionWindowPolicy.protects(nowNanos, r.protectedUntilNanos, limit, r.startLimit)) {
                    committed += nodeCount;
                    r.tickAccepted = true;
                    if (limit > highestKept) {
                        highestKept = limit;
                    }
                    continue;
                }
                if (ReclaimPolicy.outOfBidding(limit, reserve, balance)) {
                    r.tickGate = BidTooLowPolicy.tooLow(limit, reserve) ? Reason.BID_TOO_LOW : Reason.BALANCE_TOO_LOW;
                    continue;
                }
                keys[bidders++] = BidOrder.key(limit, true, i);
            } else {
                waitingNodes += nodeCount;
                Reason gate = DemandGatePolicy.gate(balance, tenant.runningCost, timings.balanceHorizon(), limit,
                        gpusAt[i], reserve);
                if (gate != null) {
                    kinds[i] = GATED;
                    if (reasonAt[i] != gate) {
                        MarketRequest r = rs.get(i);
                        reasonAt[i] = gate;
                        setReason(r, gate, gateMessage(r, gate, limit, reserve), now, events);
                    }
                    continue;
                }
                kinds[i] = WAITING_BIDDER;
                keys[bidders++] = BidOrder.key(limit, false, i);
            }
            if (idleTotal > 0) {
                Integer slot = idleSlot.get(cluster);
                slots[i] = slot == null ? -1 : slot;
            } else {
                slots[i] = -1;
            }
        }

        // 3-4. clear and price
        Arrays.sort(keys, 0, bidders);
        long lowest = ClearingPolicy.walk(keys, bidders, nodesByIndex, slots, idleBySlot,
                b.supply - committed - idleTotal, accepted);
        Money price = ClearingPricePolicy.price(reserve, lowest);
        long highestAdmitted = highestKept;
        for (int k = 0; k < bidders; k++) {
            int i = BidOrder.index(keys[k]);
            if (accepted[i]) {
                // keys run from the highest limit down: the first accepted is the highest
                highestAdmitted = Math.max(highestAdmitted, BidOrder.limit(keys[k]));
                break;
            }
        }

        // 5. reclaim and rescind (only gangs that hold nodes)
        for (int h = 0; h < holderCount; h++) {
            MarketRequest r = rs.get(holders[h]);
            if (r.tickAccepted || accepted[holders[h]]) {
                r.tickAccepted = true;
                if (r.phase == RequestPhase.RECLAIMING
                        && RescindPolicy.rescinds(true, now, r.noticeDeadline)) {
                    r.phase = RequestPhase.ADMITTED;
                    r.noticeDeadline = null;
                    events.add(new MarketEvent.ReclaimRescinded(now, r.id, r.jobId, r.cluster.id, r.grantedNodeIds()));
                }
                continue;
            }
            if (r.grants.isEmpty()) {
                r.phase = RequestPhase.WAITING;
                b.kindAt[holders[h]] = PoolBook.WAITING;
                r.noticeDeadline = null;
                r.lockedRate = null;
                r.protectedUntil = null;
                r.protectedUntilNanos = Long.MIN_VALUE;
                continue;
            }
            ReclaimCause cause = ReclaimPolicy.cause(r.tickLimit, reserve, r.startLimit,
                    r.cluster.tenant.balanceMicros());
            if (cause.withNotice()) {
                if (r.phase == RequestPhase.ADMITTED) {
                    r.phase = RequestPhase.RECLAIMING;
                    r.noticeDeadline = now.plus(timings.notice());
                    b.reclaiming.add(r);
                    events.add(new MarketEvent.PreemptionNoticed(now, r.id, r.jobId, r.cluster.id, b.pool.id(),
                            r.noticeDeadline, r.grantedNodeIds(), price));
                }
            } else {
                events.add(new MarketEvent.GangReclaimedAtOnce(now, r.id, r.jobId, r.cluster.id, b.pool.id(), cause,
                        r.grantedNodeIds()));
                revoke(r, now, events);
            }
        }

        // 6. grant: kept gangs short of nodes first, then the accepted in market order
        for (int h = 0; h < holderCount; h++) {
            MarketRequest r = rs.get(holders[h]);
            if (r.tickAccepted && !accepted[holders[h]] && r.phase.holds() && r.grants.size() < r.nodes) {
                grantNodes(r, b, price, now, events);
            }
        }
        for (int k = 0; k < bidders; k++) {
            int i = BidOrder.index(keys[k]);
            if (accepted[i]) {
                MarketRequest r = rs.get(i);
                r.tickLimit = BidOrder.limit(keys[k]);
                if (r.phase == RequestPhase.WAITING) {
                    r.phase = RequestPhase.ADMITTED;
                    b.kindAt[i] = PoolBook.HOLDING;
                }
                if (r.grants.size() < r.nodes) {
                    grantNodes(r, b, price, now, events);
                }
            }
        }
        // 7. waiting bidders not accepted, in age order, from the columns
        for (int i = 0; i < n; i++) {
            if (kinds[i] != WAITING_BIDDER || accepted[i]) {
                continue;
            }
            Reason reason = NotAcceptedReasonPolicy.reason(
                    EffectiveLimitPolicy.limit(jobLimitAt[i], clusterAt[i].limitMicros), highestAdmitted);
            if (reasonAt[i] != reason) {
                reasonAt[i] = reason;
                setReason(rs.get(i), reason, reason == Reason.OUTBID ? "a request with a higher limit price was admitted"
                        : "no supply free to take at any price", now, events);
            }
        }

        // 7. reasons of the gangs that hold nodes, and the rates the next interval bills at
        for (int h = 0; h < holderCount; h++) {
            MarketRequest r = rs.get(holders[h]);
            if (r.phase == RequestPhase.WAITING) {
                Reason reason = r.tickGate != null ? r.tickGate
                        : NotAcceptedReasonPolicy.reason(r.tickLimit, highestAdmitted);
                b.reasonAt[holders[h]] = reason;
                if (r.reason != reason) {
                    setReason(r, reason, r.tickGate != null ? gateMessage(r, reason, r.tickLimit, reserve)
                            : reason == Reason.OUTBID ? "a request with a higher limit price was admitted"
                            : "no supply free to take at any price", now, events);
                }
                continue;
            }
            if (!r.phase.holds()) {
                continue;
            }
            r.marketRate = BillingPolicy.marketRate(price, reserve, r.tickLimit);
            r.lockedInForce = !ProtectionWindowPolicy.isVoid(r.tickLimit, r.startLimit);
            if (r.phase == RequestPhase.RECLAIMING) {
                if (r.reason != Reason.MARKET_PREEMPTION) {
                    setReason(r, Reason.MARKET_PREEMPTION, "reclaimed with notice; deadline " + r.noticeDeadline, now,
                            events);
                }
            } else if (r.grants.size() == r.nodes || r.provisioned) {
                // a gang short of a node taken out of service stays Provisioned=True
                if (r.reason != Reason.PROVISIONED) {
                    setReason(r, Reason.PROVISIONED, "all " + r.nodes + " granted nodes ready", now, events);
                }
            } else {
                String message = "Provisioning (" + r.grants.size() + " of " + r.nodes + " granted nodes ready)";
                if (r.reason != Reason.PROVISIONING || !message.equals(r.message)) {
                    setReason(r, Reason.PROVISIONING, message, now, events);
                }
            }
        }
        // newly admitted gangs that were waiting are not in holders: give them their reasons too
        for (int k = 0; k < bidders; k++) {
            int i = BidOrder.index(keys[k]);
            if (!accepted[i] || BidOrder.running(keys[k])) {
                continue;
            }
            MarketRequest r = rs.get(i);
            if (!r.phase.holds()) {
                continue;
            }
            r.marketRate = BillingPolicy.marketRate(price, reserve, BidOrder.limit(keys[k]));
            r.lockedInForce = true;
            if (r.grants.size() == r.nodes) {
                if (r.reason != Reason.PROVISIONED) {
                    setReason(r, Reason.PROVISIONED, "all " + r.nodes + " granted nodes ready", now, events);
                }
            } else {
                String message = "Provisioning (" + r.grants.size() + " of " + r.nodes + " granted nodes ready)";
                if (r.reason != Reason.PROVISIONING || !message.equals(r.message)) {
                    setReason(r, Reason.PROVISIONING, message, now, events);
                }
            }
        }
        b.lastPrice = price;
        return new PoolTick(now, b.pool.id(), price, b.pool.reserve(), b.supply, b.free.size(), demand, waitingNodes,
                b.granted);
    }

    private String gateMessage(MarketRequest r, Reason gate, long limit, long reserve) {
        if (gate == Reason.BALANCE_TOO_LOW) {
            long needs = r.cluster.tenant.runningCost
                    + BalanceCheckPolicy.costOver(timings.balanceHorizon(), limit, r.gpus);
            return "balance " + Money.ofMicros(Math.max(0, r.cluster.tenant.balanceMicros())) + " USD, the request needs "
                    + Money.ofMicros(needs) + " USD (two hours at its limit price plus running grants)";
        }
        return "limit price " + Money.ofMicros(limit) + " is below the reserve " + Money.ofMicros(reserve);
    }

    private void grantNodes(MarketRequest r, PoolBook b, Money price, Instant now, List<MarketEvent> events) {
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
                if (tickCharges != null && old.billedUntil.equals(now)) {
                    closeEntry(old, tickCharges);
                }
                old.node.grant = null;
                b.granted--;
                node = old.node;
            } else if (!b.free.isEmpty()) {
                node = b.free.pollFirstEntry().getValue();
            } else {
                break;
            }
            grant(r, node, b, price, now, events);
        }
    }

    private void grant(MarketRequest r, Node node, PoolBook b, Money price, Instant now, List<MarketEvent> events) {
        ReplacementClaim claim = null;
        ArrayDeque<ReplacementClaim> claims = r.cluster.claims.get(b.pool.id());
        while (claims != null && !claims.isEmpty() && claim == null) {
            ReplacementClaim c = claims.pollFirst();
            if (ReplacementPolicy.usable(now, c)) {
                claim = c;
            }
        }
        if (r.lockedRate == null) {
            r.lockedRate = price != null ? price : b.pool.reserve();
        }
        NodeGrant g = claim != null
                ? new NodeGrant("g" + (++grantSequence), node, r.cluster, b.pool.gpusPerNode(), claim.lockedRate(), now,
                        claim.holdUntil(), claim.protectedUntil(), true)
                : new NodeGrant("g" + (++grantSequence), node, r.cluster, b.pool.gpusPerNode(), r.lockedRate, now,
                        now.plus(timings.minimumHold()), now.plus(timings.protection()), false);
        if (r.protectedUntil == null) {
            r.protectedUntil = g.protectedUntil;
            r.protectedUntilNanos = ProtectionWindowPolicy.epochNanos(g.protectedUntil);
            r.marketRate = Math.min(g.lockedRate.micros(), r.tickLimit);
            r.lockedInForce = true;
            r.startLimit = r.tickLimit;
        }
        g.request = r;
        node.grant = g;
        r.grants.add(g);
        grants.put(g.id, g);
        b.granted++;
        events.add(new MarketEvent.NodeGranted(now, r.id, r.jobId, r.cluster.id, b.pool.id(), node.id, g.id,
                g.lockedRate, g.protectedUntil, g.replacement));
        if (r.grants.size() == r.nodes && !r.provisioned) {
            r.provisioned = true;
            events.add(new MarketEvent.GangProvisioned(now, r.id, r.jobId, r.cluster.id, b.pool.id(), r.nodes,
                    r.lockedRate));
        }
    }

    private void admitFromQueue(TenantCluster c, Instant now, List<MarketEvent> events) {
        if (c.queue.isEmpty()) {
            return;
        }
        List<ClusterQuotaPolicy.Queued> queued = new ArrayList<>(c.queue.size());
        Map<String, MarketRequest> byId = new HashMap<>();
        for (MarketRequest r : c.queue) {
            queued.add(new ClusterQuotaPolicy.Queued(r.id, r.priority, r.sequence, r.gpus));
            byId.put(r.id, r);
        }
        List<String> toFile = ClusterQuotaPolicy.toFile(queued, c.usedGpus, c.maxGpus);
        for (String id : toFile) {
            MarketRequest r = byId.get(id);
            r.phase = RequestPhase.WAITING;
            c.usedGpus += r.gpus;
            book(r.pool).added.add(r);
            setReason(r, Reason.PENDING, "filed with the market; not read yet", now, events);
            events.add(new MarketEvent.RequestFiled(now, r.id, r.jobId, c.id, r.pool, r.gpus));
        }
        c.queue.removeIf(r -> r.phase != RequestPhase.QUEUED);
        for (MarketRequest r : c.queue) {
            if (r.reason != Reason.QUOTA_WAIT) {
                setReason(r, Reason.QUOTA_WAIT, r.gpus > c.maxGpus
                        ? r.gpus + " GPUs is more than the max cluster size of " + c.maxGpus + " GPUs"
                        : "waiting for quota: the max cluster size of " + c.maxGpus + " GPUs binds", now, events);
            }
        }
    }

    private void packBlock(TenantCluster c, Instant now, List<MarketEvent> events) {
        Map<PoolId, List<MarketRequest>> byPool = new TreeMap<>();
        for (MarketRequest r : c.blockWaiting) {
            byPool.computeIfAbsent(r.pool, p -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<PoolId, List<MarketRequest>> e : byPool.entrySet()) {
            int perNode = book(e.getKey()).pool.gpusPerNode();
            Map<String, Integer> freeGpus = new LinkedHashMap<>();
            for (Node node : c.blockNodes.values()) {
                if (node.inService && node.pool.equals(e.getKey())) {
                    freeGpus.put(node.id, perNode - node.seatedGpus);
                }
            }
            List<BlockPackingPolicy.Waiting> waiting = new ArrayList<>();
            Map<String, MarketRequest> byId = new HashMap<>();
            for (MarketRequest r : e.getValue()) {
                waiting.add(new BlockPackingPolicy.Waiting(r.id, r.priority, r.sequence, r.gpus));
                byId.put(r.id, r);
            }
            for (Map.Entry<String, String> seat : BlockPackingPolicy.seat(waiting, freeGpus).entrySet()) {
                MarketRequest r = byId.get(seat.getKey());
                Node node = nodes.get(seat.getValue());
                node.seatedGpus += r.gpus;
                r.blockNode = node;
                r.phase = RequestPhase.SEATED;
                setReason(r, Reason.PROVISIONED, "seated on base load block node " + node.id, now, events);
                events.add(new MarketEvent.BlockSeated(now, r.id, r.jobId, c.id, node.id, r.gpus));
            }
        }
        c.blockWaiting.removeIf(r -> r.phase != RequestPhase.QUEUED);
        for (MarketRequest r : c.blockWaiting) {
            if (r.reason != Reason.BLOCK_WAIT) {
                setReason(r, Reason.BLOCK_WAIT, "waiting for GPUs of the cluster's base load block", now, events);
            }
        }
    }

    // ---------------------------------------------------------------- transitions

    private static final byte GATED = 0;
    private static final byte WAITING_BIDDER = 1;
    private static final byte HOLDER = 2;

    private MarketRequest newRequest(String jobId, int attempt, TenantCluster c, PoolId pool, int gpus, int nodeCount,
                                     PriorityClass priority, Instant at, Money jobLimit) {
        String id = attempt == 1 ? jobId : jobId + "#" + attempt;
        MarketRequest r = new MarketRequest(id, jobId, attempt, c, pool, gpus, nodeCount, priority, ++sequence, at,
                jobLimit);
        r.phase = RequestPhase.QUEUED;
        requests.put(id, r);
        openByJob.put(jobId, r);
        if (nodeCount == 0) {
            c.blockWaiting.add(r);
        } else {
            c.queue.add(r);
        }
        return r;
    }

    private void revoke(MarketRequest r, Instant at, List<MarketEvent> events) {
        for (NodeGrant g : r.grants) {
            g.detach();
            endGrant(g, at, events);
        }
        r.grants.clear();
        r.phase = RequestPhase.REVOKED;
        book(r.pool).markGone(r);
        r.noticeDeadline = null;
        r.cluster.usedGpus -= r.gpus;
        setReason(r, Reason.MARKET_REVOKED, "the market revoked the request; the job requeues", at, events);
        requests.remove(r.id);
        openByJob.remove(r.jobId);
        MarketRequest next = newRequest(r.jobId, r.attempt + 1, r.cluster, r.pool, r.gpus, r.nodes, r.priority, at,
                r.jobLimit);
        events.add(new MarketEvent.GangRevoked(at, r.id, r.jobId, r.cluster.id, next.id));
        admitFromQueue(r.cluster, at, events);
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
                    makeIdle(g, at, b);
                }
            }
            case RECLAIMING -> {
                r.cluster.usedGpus -= r.gpus;
                for (NodeGrant g : r.grants) {
                    g.detach();
                    endGrant(g, at, null);
                }
            }
            case SEATED -> r.blockNode.seatedGpus -= r.gpus;
            default -> {
            }
        }
        r.grants.clear();
        boolean wasFiled = r.phase.filed();
        r.phase = RequestPhase.CLOSED;
        if (wasFiled) {
            book(r.pool).markGone(r);
        }
        requests.remove(r.id);
        openByJob.remove(r.jobId);
    }

    private void makeIdle(NodeGrant g, Instant at, PoolBook b) {
        g.idleSince = at;
        b.idle.computeIfAbsent(g.cluster, c -> new ArrayDeque<>()).add(g);
        idleGrants.add(g);
    }

    private void detachFromRequest(NodeGrant g) {
        if (g.request != null) {
            g.request.grants.remove(g);
            g.detach();
        }
        if (g.idleSince != null && idleGrants.remove(g)) {
            PoolBook b = book(g.node.pool);
            ArrayDeque<NodeGrant> q = b.idle.get(g.cluster);
            if (q != null) {
                q.remove(g);
                if (q.isEmpty()) {
                    b.idle.remove(g.cluster);
                }
            }
        }
    }

    /** Ends a grant at {@code at}: billing stops there and the node returns to supply if it can. */
    private void endGrant(NodeGrant g, Instant at, List<MarketEvent> events) {
        g.endsAt = at;
        if (tickCharges != null && g.billedUntil.equals(at)) {
            closeEntry(g, tickCharges);
        }
        Node node = g.node;
        if (node.grant == g) {
            node.grant = null;
            PoolBook b = book(node.pool);
            b.granted--;
            if (node.inService && node.block == null && nodes.containsKey(node.id)) {
                b.free.put(node.id, node);
            }
            if (events != null) {
                events.add(new MarketEvent.NodeReleased(at, node.id, g.cluster.id, node.pool));
            }
        }
    }

    private void unseatBlockNode(Node node) {
        TenantCluster c = node.block;
        for (MarketRequest r : new ArrayList<>(requests.values())) {
            if (r.phase == RequestPhase.SEATED && r.blockNode == node) {
                r.blockNode = null;
                r.phase = RequestPhase.QUEUED;
                r.reason = Reason.PENDING;
                c.blockWaiting.add(r);
            }
        }
        node.seatedGpus = 0;
    }

    private void setReason(MarketRequest r, Reason reason, String message, Instant at, List<MarketEvent> events) {
        r.reason = reason;
        r.message = message;
        events.add(new MarketEvent.ReasonChanged(at, r.id, r.jobId, r.cluster.id, reason, message));
    }

    // ---------------------------------------------------------------- snapshot

    /** The market's whole state as values (see {@link MarketSnapshot}). */
    public MarketSnapshot snapshot() {
        List<MarketSnapshot.PoolState> poolStates = new ArrayList<>();
        for (PoolBook b : pools.values()) {
            List<MarketSnapshot.NodeState> nodeStates = new ArrayList<>();
            for (Node n : b.nodes.values()) {
                nodeStates.add(new MarketSnapshot.NodeState(n.id, n.inService, n.block == null ? null : n.block.id,
                        n.seatedGpus, n.lostGrant == null ? null : grantState(n.lostGrant)));
            }
            List<String> reclaimingIds = new ArrayList<>();
            for (MarketRequest r : b.reclaiming) {
                if (r.phase == RequestPhase.RECLAIMING) {
                    reclaimingIds.add(r.id);
                }
            }
            poolStates.add(new MarketSnapshot.PoolState(b.pool.id(), b.pool.gpusPerNode(), b.pool.reserve(),
                    b.lastPrice, List.copyOf(nodeStates), List.copyOf(reclaimingIds)));
        }
        List<MarketSnapshot.TenantState> tenantStates = new ArrayList<>();
        for (Tenant t : tenants.values()) {
            tenantStates.add(new MarketSnapshot.TenantState(t.id, t.credits, t.charged));
        }
        List<MarketSnapshot.ClusterState> clusterStates = new ArrayList<>();
        for (TenantCluster c : clusters.values()) {
            List<ReplacementClaim> claims = new ArrayList<>();
            for (ArrayDeque<ReplacementClaim> q : new TreeMap<>(c.claims).values()) {
                claims.addAll(q);
            }
            clusterStates.add(new MarketSnapshot.ClusterState(c.id, c.tenant.id, c.maxGpus, c.limit, c.usedGpus,
                    c.queue.stream().map(r -> r.id).toList(), c.blockWaiting.stream().map(r -> r.id).toList(),
                    List.copyOf(claims)));
        }
        List<MarketSnapshot.RequestState> requestStates = new ArrayList<>();
        for (MarketRequest r : openRequests()) {
            requestStates.add(new MarketSnapshot.RequestState(r.id, r.jobId, r.attempt, r.cluster.id, r.pool, r.gpus,
                    r.nodes, r.priority, r.sequence, r.createdAt, r.jobLimit, r.phase, r.reason, r.message,
                    r.grants.stream().map(g -> g.id).toList(), r.lockedRate, r.protectedUntil, r.startLimit,
                    r.noticeDeadline, r.provisioned, r.blockNode == null ? null : r.blockNode.id, r.marketRate,
                    r.lockedInForce));
        }
        List<MarketSnapshot.GrantState> grantStates = new ArrayList<>();
        for (NodeGrant g : grants.values()) {
            grantStates.add(grantState(g));
        }
        List<String> idleOrder = idleGrants.stream().map(g -> g.id).toList();
        return new MarketSnapshot(timings, lastTick, sequence, grantSequence, List.copyOf(poolStates),
                List.copyOf(tenantStates), List.copyOf(clusterStates), List.copyOf(requestStates),
                List.copyOf(grantStates), idleOrder, List.copyOf(betweenTicks));
    }

    private static MarketSnapshot.GrantState grantState(NodeGrant g) {
        return new MarketSnapshot.GrantState(g.id, g.node.id, g.node.pool, g.cluster.id, g.gpus, g.lockedRate,
                g.grantedAt, g.holdUntil, g.protectedUntil, g.replacement, g.request == null ? null : g.request.id,
                g.idleSince, g.marketRate, g.lockedInForce, g.billedUntil, g.endsAt, g.entryFrom, g.entryRate,
                g.entryLocked, g.entryAccrued);
    }

    /** Rebuilds a market from a snapshot; it then decides exactly as the market the snapshot was taken of. */
    public static Market restore(MarketSnapshot s) {
        Market m = new Market(s.timings());
        m.lastTick = s.lastTick();
        m.sequence = s.sequence();
        m.grantSequence = s.grantSequence();
        m.betweenTicks.addAll(s.betweenTicks());
        for (MarketSnapshot.TenantState t : s.tenants()) {
            Tenant tenant = new Tenant(t.id(), t.creditsMicros());
            tenant.charged = t.chargedMicros();
            m.tenants.put(t.id(), tenant);
        }
        for (MarketSnapshot.ClusterState c : s.clusters()) {
            TenantCluster cluster = new TenantCluster(c.id(), m.tenants.get(c.tenantId()), m.clusters.size(),
                    c.maxGpus(), c.limit());
            cluster.usedGpus = c.usedGpus();
            for (ReplacementClaim claim : c.claims()) {
                cluster.claims.computeIfAbsent(claim.pool(), p -> new ArrayDeque<>()).add(claim);
            }
            m.clusters.put(c.id(), cluster);
        }
        for (MarketSnapshot.PoolState p : s.pools()) {
            PoolBook b = new PoolBook(new Pool(p.id(), p.gpusPerNode(), p.reserve()));
            b.lastPrice = p.lastPrice();
            m.pools.put(p.id(), b);
            for (MarketSnapshot.NodeState ns : p.nodes()) {
                Node node = new Node(ns.id(), p.id());
                node.inService = ns.inService();
                node.seatedGpus = ns.seatedGpus();
                if (ns.blockClusterId() != null) {
                    node.block = m.clusters.get(ns.blockClusterId());
                    node.block.blockNodes.put(node.id, node);
                }
                m.nodes.put(node.id, node);
                b.nodes.put(node.id, node);
                if (node.inService && node.block == null) {
                    b.supply++;
                }
            }
        }
        Map<String, MarketRequest> byId = new HashMap<>();
        for (MarketSnapshot.RequestState rs : s.requests()) {
            MarketRequest r = new MarketRequest(rs.id(), rs.jobId(), rs.attempt(), m.clusters.get(rs.clusterId()),
                    rs.pool(), rs.gpus(), rs.nodes(), rs.priority(), rs.sequence(), rs.createdAt(), rs.jobLimit());
            r.phase = rs.phase();
            r.reason = rs.reason();
            r.message = rs.message();
            r.lockedRate = rs.lockedRate();
            r.protectedUntil = rs.protectedUntil();
            r.protectedUntilNanos = rs.protectedUntil() == null ? Long.MIN_VALUE
                    : ProtectionWindowPolicy.epochNanos(rs.protectedUntil());
            r.startLimit = rs.startLimit();
            r.noticeDeadline = rs.noticeDeadline();
            r.provisioned = rs.provisioned();
            r.blockNode = rs.blockNodeId() == null ? null : m.nodes.get(rs.blockNodeId());
            r.marketRate = rs.marketRate();
            r.lockedInForce = rs.lockedInForce();
            byId.put(r.id, r);
            m.requests.put(r.id, r);
            m.openByJob.put(r.jobId, r);
            if (r.phase.filed()) {
                m.book(r.pool).added.add(r);
            }
        }
        for (MarketSnapshot.ClusterState c : s.clusters()) {
            TenantCluster cluster = m.clusters.get(c.id());
            c.queueIds().forEach(id -> cluster.queue.add(byId.get(id)));
            c.blockWaitingIds().forEach(id -> cluster.blockWaiting.add(byId.get(id)));
        }
        Map<String, NodeGrant> grantsById = new HashMap<>();
        for (MarketSnapshot.GrantState gs : s.grants()) {
            NodeGrant g = grantOf(m, gs);
            if (gs.requestId() != null) {
                g.request = byId.get(gs.requestId());
            }
            m.grants.put(g.id, g);
            grantsById.put(g.id, g);
            if (g.endsAt == null) {
                g.node.grant = g;
                m.book(g.node.pool).granted++;
            }
        }
        for (MarketSnapshot.RequestState rs : s.requests()) {
            MarketRequest r = byId.get(rs.id());
            rs.grantIds().forEach(id -> r.grants.add(grantsById.get(id)));
        }
        for (String id : s.idleOrder()) {
            NodeGrant g = grantsById.get(id);
            m.idleGrants.add(g);
            m.book(g.node.pool).idle.computeIfAbsent(g.cluster, c -> new ArrayDeque<>()).add(g);
        }
        for (MarketSnapshot.PoolState p : s.pools()) {
            PoolBook b = m.pools.get(p.id());
            p.reclaimingIds().forEach(id -> b.reclaiming.add(byId.get(id)));
            for (MarketSnapshot.NodeState ns : p.nodes()) {
                Node node = m.nodes.get(ns.id());
                if (ns.lostGrant() != null) {
                    node.lostGrant = grantOf(m, ns.lostGrant());
                }
                if (node.inService && node.block == null && node.grant == null) {
                    b.free.put(node.id, node);
                }
            }
        }
        return m;
    }

    private static NodeGrant grantOf(Market m, MarketSnapshot.GrantState gs) {
        Node node = m.nodes.get(gs.nodeId());
        if (node == null) {
            // the operator removed the node; its ended grant still bills to its end
            node = new Node(gs.nodeId(), gs.pool());
            node.inService = false;
        }
        NodeGrant g = new NodeGrant(gs.id(), node, m.clusters.get(gs.clusterId()), gs.gpus(),
                gs.lockedRate(), gs.grantedAt(), gs.holdUntil(), gs.protectedUntil(), gs.replacement());
        g.idleSince = gs.idleSince();
        g.marketRate = gs.marketRate();
        g.lockedInForce = gs.lockedInForce();
        g.billedUntil = gs.billedUntil();
        g.endsAt = gs.endsAt();
        g.entryFrom = gs.entryFrom();
        g.entryRate = gs.entryRate();
        g.entryLocked = gs.entryLocked();
        g.entryAccrued = gs.entryAccrued();
        return g;
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

    public Instant lastTick() {
        return lastTick;
    }

    private PoolBook book(PoolId id) {
        PoolBook b = pools.get(id);
        if (b == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no pool " + id, Map.of("pool", String.valueOf(id)));
        }
        return b;
    }
}
