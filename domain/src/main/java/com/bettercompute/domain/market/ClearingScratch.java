package com.bettercompute.domain.market;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The work of one pool's clearing in a tick, shared by its steps: per position of the pool's filed
 * requests (read from {@link PoolBook}'s columns) the bidder keys and what each is this tick, per
 * holder (a gang that holds nodes) its limit, whether it keeps its nodes and why it is out of the
 * bidding, and the pool's counts. The arrays are reused by every pool and tick; nothing of it is
 * kept on the requests.
 */
final class ClearingScratch {
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
    boolean[] holderKept = new boolean[0];
    Reason[] holderGate = new Reason[0];

    // the pool being cleared
    PoolBook book;
    long reserve;
    long[] runningCost;
    int bidders;
    int holderCount;
    int committed;
    int demand;
    int waitingNodes;
    long highestKept;
    Map<TenantCluster, Integer> idleSlot;
    int[] idleBySlot;
    int idleTotal;

    void start(PoolBook b, long[] runningCostBySlot) {
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
