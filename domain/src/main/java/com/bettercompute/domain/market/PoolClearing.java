package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Steps 1 to 7 of a tick for one pool (MARKET.md, "One tick"): read demand, set committed supply
 * aside, clear, price, reclaim, grant, and give the rest their reasons. Each step is one method;
 * the policies decide, this class only walks the pool's requests.
 *
 * <p>The work arrays are this tick's scratch, kept here (not on the requests) and reused by every
 * pool and tick: a pool's filed requests are read from {@link PoolBook}'s columns by position, and
 * only gangs that hold nodes (the holders) are read as objects.
 */
final class PoolClearing {
    private static final byte GATED = 0;
    private static final byte WAITING_BIDDER = 1;
    private static final byte HOLDER = 2;
    private static final String OUTBID = "a request with a higher limit price was admitted";
    private static final String NO_SUPPLY = "no supply free to take at any price";

    private final Market market;

    // per position i of the pool's requests
    private long[] keys = new long[0];
    private int[] slots = new int[0];
    private byte[] kinds = new byte[0];
    private boolean[] accepted = new boolean[0];
    // per holder h
    private int[] holders = new int[0];
    private long[] holderLimit = new long[0];
    private boolean[] holderKept = new boolean[0];
    private Reason[] holderGate = new Reason[0];

    // the pool being cleared
    private PoolBook book;
    private long reserve;
    private long[] runningCost;
    private int bidders;
    private int holderCount;
    private int committed;
    private int demand;
    private int waitingNodes;
    private long highestKept;
    private Map<TenantCluster, Integer> idleSlot;
    private int[] idleBySlot;
    private int idleTotal;

    PoolClearing(Market market) {
        this.market = market;
    }

    /** Clears one pool at {@code now}; {@code runningCost} is by tenant slot ({@link Billing#runningCost}). */
    PoolTick clear(PoolBook b, Instant now, long[] runningCost, List<MarketEvent> events) {
        b.compact();
        start(b, runningCost);
        readDemand(now, events);
        long lowest = ClearingPolicy.walk(keys, bidders, b.nodesAt, slots, idleBySlot,
                b.supply - committed - idleTotal, accepted);
        Money price = ClearingPricePolicy.price(reserve, lowest);
        reclaim(price, now, events);
        grant(price, now, events);
        reasons(price, highestAdmitted(), now, events);
        b.lastPrice = price;
        book = null;
        runningCost = null;
        return new PoolTick(now, b.pool.id(), price, b.pool.reserve(), b.supply, b.free.size(), demand, waitingNodes,
                b.granted);
    }

    private void start(PoolBook b, long[] runningCostBySlot) {
        book = b;
        runningCost = runningCostBySlot;
        reserve = b.pool.reserve().micros();
        int n = b.requests.size();
        if (keys.length < n) {
            int size = Math.max(n, keys.length * 3 / 2 + 16);
            keys = new long[size];
            slots = new int[size];
            kinds = new byte[size];
            accepted = new boolean[size];
            holders = new int[size];
            holderLimit = new long[size];
            holderKept = new boolean[size];
            holderGate = new Reason[size];
        }
        Arrays.fill(accepted, 0, n, false);
        bidders = 0;
        holderCount = 0;
        committed = 0;
        demand = 0;
        waitingNodes = 0;
        highestKept = -1;
        idleSlot = Map.of();
        idleBySlot = new int[0];
        idleTotal = 0;
        if (!b.idle.isEmpty()) {
            idleSlot = new HashMap<>();
            idleBySlot = new int[b.idle.size()];
            for (Map.Entry<TenantCluster, ArrayDeque<NodeGrant>> e : b.idle.entrySet()) {
                idleBySlot[idleSlot.size()] = e.getValue().size();
                idleTotal += e.getValue().size();
                idleSlot.put(e.getKey(), idleSlot.size());
            }
        }
    }

    /**
     * Steps 1 and 2: every waiting request is gated ({@code BalanceTooLow}, {@code BidTooLow}) or bids;
     * a holder inside its window keeps its nodes (committed supply), else it bids too, unless its own
     * side put it out of the bidding. A tenant whose balance ran out has no window.
     */
    private void readDemand(Instant now, List<MarketEvent> events) {
        PoolBook b = book;
        long nowNanos = ProtectionWindowPolicy.epochNanos(now);
        for (int i = 0; i < b.requests.size(); i++) {
            TenantCluster cluster = b.clusterAt[i];
            long limit = EffectiveLimitPolicy.limit(b.jobLimitAt[i], cluster.limitMicros);
            int nodeCount = b.nodesAt[i];
            demand += nodeCount;
            Tenant tenant = cluster.tenant;
            long balance = tenant.balanceMicros();
            if (b.kindAt[i] == PoolBook.HOLDING) {
                int h = holderCount++;
                holders[h] = i;
                kinds[i] = HOLDER;
                holderLimit[h] = limit;
                holderGate[h] = null;
                holderKept[h] = false;
                MarketRequest r = b.requests.get(i);
                if (!BalanceCheckPolicy.ranOut(balance)
                        && ProtectionWindowPolicy.protects(nowNanos, r.protectedUntilNanos, limit, r.startLimit)) {
                    committed += nodeCount;
                    holderKept[h] = true;
                    highestKept = Math.max(highestKept, limit);
                    continue;
                }
                if (ReclaimPolicy.outOfBidding(limit, reserve, balance)) {
                    holderGate[h] = BidTooLowPolicy.tooLow(limit, reserve) ? Reason.BID_TOO_LOW : Reason.BALANCE_TOO_LOW;
                    continue;
                }
                keys[bidders++] = BidOrder.key(limit, true, i);
            } else {
                waitingNodes += nodeCount;
                Reason gate = DemandGatePolicy.gate(balance, runningCost[tenant.slot],
                        market.timings().balanceHorizon(), limit, b.gpusAt[i], reserve);
                if (gate != null) {
                    kinds[i] = GATED;
                    if (b.reasonAt[i] != gate) {
                        MarketRequest r = b.requests.get(i);
                        b.reasonAt[i] = gate;
                        market.setReason(r, gate, gateMessage(r, gate, limit), now, events);
                    }
                    continue;
                }
                kinds[i] = WAITING_BIDDER;
                keys[bidders++] = BidOrder.key(limit, false, i);
            }
            Integer slot = idleTotal > 0 ? idleSlot.get(cluster) : null;
            slots[i] = slot == null ? -1 : slot;
        }
        Arrays.sort(keys, 0, bidders);
    }

    /** The highest limit accepted or kept: keys run from the highest limit down, so the first accepted. */
    private long highestAdmitted() {
        for (int k = 0; k < bidders; k++) {
            if (accepted[BidOrder.index(keys[k])]) {
                return Math.max(highestKept, BidOrder.limit(keys[k]));
            }
        }
        return highestKept;
    }

    /**
     * Step 5: a holder accepted again keeps its nodes (and a notice is rescinded); one not accepted
     * loses them, with notice when outbid, at once when its own side caused it.
     */
    private void reclaim(Money price, Instant now, List<MarketEvent> events) {
        PoolBook b = book;
        for (int h = 0; h < holderCount; h++) {
            int i = holders[h];
            MarketRequest r = b.requests.get(i);
            if (holderKept[h] || accepted[i]) {
                holderKept[h] = true;
                if (r.phase == RequestPhase.RECLAIMING && RescindPolicy.rescinds(true, now, r.noticeDeadline)) {
                    r.phase = RequestPhase.ADMITTED;
                    r.noticeDeadline = null;
                    events.add(new MarketEvent.ReclaimRescinded(now, r.id, r.jobId, r.cluster.id, r.grantedNodeIds()));
                }
                continue;
            }
            if (r.grants.isEmpty()) {
                r.phase = RequestPhase.WAITING;
                b.kindAt[i] = PoolBook.WAITING;
                r.noticeDeadline = null;
                r.lockedRate = null;
                r.window(null);
                continue;
            }
            ReclaimCause cause = ReclaimPolicy.cause(holderLimit[h], reserve, r.startLimit,
                    r.cluster.tenant.balanceMicros());
            if (!cause.withNotice()) {
                events.add(new MarketEvent.GangReclaimedAtOnce(now, r.id, r.jobId, r.cluster.id, b.pool.id(), cause,
                        r.grantedNodeIds()));
                market.revoke(r, now, events, true, "reclaimed at once: " + cause + "; the job requeues");
            } else if (r.phase == RequestPhase.ADMITTED) {
                r.phase = RequestPhase.RECLAIMING;
                r.noticeDeadline = now.plus(market.timings().notice());
                b.reclaiming.add(r);
                events.add(new MarketEvent.PreemptionNoticed(now, r.id, r.jobId, r.cluster.id, b.pool.id(),
                        r.noticeDeadline, r.grantedNodeIds(), price));
            }
        }
    }

    /** Step 6: kept gangs short of nodes first, then the accepted in market order. */
    private void grant(Money price, Instant now, List<MarketEvent> events) {
        PoolBook b = book;
        for (int h = 0; h < holderCount; h++) {
            MarketRequest r = b.requests.get(holders[h]);
            if (holderKept[h] && !accepted[holders[h]] && r.phase.holds() && r.grants.size() < r.nodes) {
                market.grantNodes(r, b, price, holderLimit[h], now, events);
            }
        }
        for (int k = 0; k < bidders; k++) {
            int i = BidOrder.index(keys[k]);
            if (!accepted[i]) {
                continue;
            }
            MarketRequest r = b.requests.get(i);
            if (r.phase == RequestPhase.WAITING) {
                r.phase = RequestPhase.ADMITTED;
                b.kindAt[i] = PoolBook.HOLDING;
            }
            if (r.grants.size() < r.nodes) {
                market.grantNodes(r, b, price, BidOrder.limit(keys[k]), now, events);
            }
        }
    }

    /** Step 7: reasons for bidders not accepted, for every gang that holds nodes, and their next rates. */
    private void reasons(Money price, long highestAdmitted, Instant now, List<MarketEvent> events) {
        PoolBook b = book;
        for (int i = 0; i < b.requests.size(); i++) {
            if (kinds[i] != WAITING_BIDDER || accepted[i]) {
                continue;
            }
            Reason reason = NotAcceptedReasonPolicy.reason(
                    EffectiveLimitPolicy.limit(b.jobLimitAt[i], b.clusterAt[i].limitMicros), highestAdmitted);
            if (b.reasonAt[i] != reason) {
                b.reasonAt[i] = reason;
                market.setReason(b.requests.get(i), reason, reason == Reason.OUTBID ? OUTBID : NO_SUPPLY, now, events);
            }
        }
        for (int h = 0; h < holderCount; h++) {
            MarketRequest r = b.requests.get(holders[h]);
            if (r.phase == RequestPhase.WAITING) {
                Reason reason = holderGate[h] != null ? holderGate[h]
                        : NotAcceptedReasonPolicy.reason(holderLimit[h], highestAdmitted);
                b.reasonAt[holders[h]] = reason;
                if (r.reason != reason) {
                    market.setReason(r, reason, holderGate[h] != null
                            ? gateMessage(r, reason, holderLimit[h])
                            : reason == Reason.OUTBID ? OUTBID : NO_SUPPLY, now, events);
                }
            } else if (r.phase.holds()) {
                held(r, price, holderLimit[h], !ProtectionWindowPolicy.isVoid(holderLimit[h], r.startLimit), now,
                        events);
            }
        }
        for (int k = 0; k < bidders; k++) {
            int i = BidOrder.index(keys[k]);
            if (accepted[i] && !BidOrder.running(keys[k])) {
                MarketRequest r = b.requests.get(i);
                if (r.phase.holds()) {
                    held(r, price, BidOrder.limit(keys[k]), true, now, events);
                }
            }
        }
    }

    /** A gang that holds nodes: the rates its next interval bills at, and its reason. */
    private void held(MarketRequest r, Money price, long limit, boolean lockedInForce, Instant now,
                      List<MarketEvent> events) {
        r.marketRate = BillingPolicy.marketRate(price, reserve, limit);
        r.lockedInForce = lockedInForce;
        if (r.phase == RequestPhase.RECLAIMING) {
            if (r.reason != Reason.MARKET_PREEMPTION) {
                market.setReason(r, Reason.MARKET_PREEMPTION, "reclaimed with notice; deadline " + r.noticeDeadline,
                        now, events);
            }
        } else {
            market.provisioningReason(r, now, events);
        }
    }

    private String gateMessage(MarketRequest r, Reason gate, long limit) {
        if (gate == Reason.BALANCE_TOO_LOW) {
            long needs = runningCost[r.cluster.tenant.slot] + BalanceCheckPolicy.costOver(market.timings().balanceHorizon(), limit, r.gpus);
            return "balance " + Money.ofMicros(Math.max(0, r.cluster.tenant.balanceMicros())) + " USD, the request needs "
                    + Money.ofMicros(needs) + " USD (two hours at its limit price plus the nodes it has billing)";
        }
        return "limit price " + Money.ofMicros(limit) + " is below the reserve " + Money.ofMicros(reserve);
    }
}
