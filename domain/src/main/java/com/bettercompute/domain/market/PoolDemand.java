package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Steps 1 to 3 of a pool's clearing (docs/decisions/market-pricing.md, "The tick"): the pool's demand as read at this tick, and
 * the walk over it. Per position of the pool's filed requests (read from {@link PoolBook}'s columns) the
 * bidder keys, what each is this tick and whether the walk accepted it; per holder (a gang that holds nodes)
 * its limit, whether its window keeps its nodes and why it is out of the bidding; and the pool's counts.
 * The later steps read it and never write it. The arrays are reused by every pool and tick; nothing of it
 * is kept on the requests.
 */
final class PoolDemand {
    static final byte GATED = 0;
    static final byte WAITING_BIDDER = 1;
    static final byte HOLDER = 2;

    // per position i of the pool's requests
    long[] keys = new long[0];
    int[] slots = new int[0];
    byte[] kinds = new byte[0];
    boolean[] accepted = new boolean[0];
    // per holder h
    int[] holders = new int[0];
    long[] holderLimit = new long[0];
    /** Whether the holder's window keeps its nodes: committed supply, not bidding. */
    boolean[] holderKept = new boolean[0];
    Reason[] holderGate = new Reason[0];

    // the pool being cleared
    PoolBook book;
    long reserve;
    private long[] runningCost;
    int bidders;
    int holderCount;
    int committed;
    int demand;
    int waitingNodes;
    long highestKept;
    private Map<TenantCluster, Integer> idleSlot;
    private int[] idleBySlot;
    private int idleTotal;

    /**
     * Steps 1 and 2: every waiting request is gated ({@code BalanceTooLow}, {@code BidTooLow}) or bids; a
     * holder inside its window keeps its nodes (committed supply), else it bids too, unless its own side put
     * it out of the bidding. A tenant whose balance ran out has no window. Fills the bidder keys in no order:
     * the walk sorts what it needs. {@code runningCost} is by tenant slot ({@link Billing#runningCost}).
     *
     * @return the gates whose reason changed
     */
    List<Decision> read(PoolBook b, long[] runningCostBySlot, Instant now, MarketTimings timings) {
        start(b, runningCostBySlot);
        List<Decision> decided = new ArrayList<>();
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
                    holderGate[h] = BidTooLowPolicy.tooLow(limit, reserve) ? Reason.BID_TOO_LOW
                            : Reason.BALANCE_TOO_LOW;
                    continue;
                }
                keys[bidders++] = BidOrder.key(limit, true, i);
            } else {
                waitingNodes += nodeCount;
                Reason gate = DemandGatePolicy.gate(balance, runningCost[tenant.slot], timings.balanceHorizon(), limit,
                        b.gpusAt[i], reserve);
                if (gate != null) {
                    kinds[i] = GATED;
                    if (b.reasonAt[i] != gate) {
                        MarketRequest r = b.requests.get(i);
                        decided.add(new Decision.GiveReason(r, i, gate, gateMessage(r, gate, limit, timings)));
                    }
                    continue;
                }
                kinds[i] = WAITING_BIDDER;
                keys[bidders++] = BidOrder.key(limit, false, i);
            }
            Integer slot = idleTotal > 0 ? idleSlot.get(cluster) : null;
            slots[i] = slot == null ? -1 : slot;
        }
        return decided;
    }

    /**
     * Step 3: the walk over the bidders in market order, sorted only as far as it goes, from the pool's last
     * price down ({@link ClearingPolicy#sortAndWalk}); marks the accepted.
     *
     * @return the lowest accepted limit, or -1
     */
    long walk() {
        long aheadUpTo = book.lastPrice == null ? Long.MAX_VALUE : BidOrder.lastKeyAtOrAbove(book.lastPrice.micros());
        return ClearingPolicy.sortAndWalk(keys, bidders, aheadUpTo, book.nodesAt, slots, idleBySlot,
                book.supply - committed - idleTotal, accepted);
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

    /** The highest limit accepted or kept: keys run from the highest limit down, so the first accepted. */
    long highestAdmitted() {
        for (int k = 0; k < bidders; k++) {
            if (accepted[BidOrder.index(keys[k])]) {
                return Math.max(highestKept, BidOrder.limit(keys[k]));
            }
        }
        return highestKept;
    }

    /** The pool is cleared: nothing of it is held on to until the next. */
    void finish() {
        book = null;
        runningCost = null;
    }

    String gateMessage(MarketRequest r, Reason gate, long limit, MarketTimings timings) {
        if (gate == Reason.BALANCE_TOO_LOW) {
            long needs = runningCost[r.cluster.tenant.slot]
                    + BalanceCheckPolicy.costOver(timings.balanceHorizon(), limit, r.gpus);
            return "balance " + Money.ofMicros(Math.max(0, r.cluster.tenant.balanceMicros()))
                    + " USD, the request needs " + Money.ofMicros(needs)
                    + " USD (two hours at its limit price plus the nodes it has billing)";
        }
        return "limit price " + Money.ofMicros(limit) + " is below the reserve " + Money.ofMicros(reserve);
    }
}
