package com.bettercompute.domain.market;

import java.util.Arrays;
import java.util.List;

/**
 * The clearing walk: bidders in {@link BidOrder}, each accepted when its whole gang fits in the
 * supply left, skipped when it does not (a smaller one behind it may). A gang is all or nothing.
 * A waiting request may also use idle nodes its own cluster already holds in the pool; a running
 * one already sits on its nodes, which are part of the supply.
 */
public final class ClearingPolicy {
    private ClearingPolicy() {
    }

    /** One bidder, for callers that do not need the array form. */
    public record Bid(long limit, boolean running, int nodes, int clusterSlot) {
    }

    /** The accepted bidders (by position in the input list) and the lowest accepted limit, or -1. */
    public record Result(List<Integer> accepted, long lowestAcceptedLimit) {
    }

    /** Clears {@code bids}, whose list order is their age (oldest first). */
    public static Result clear(List<Bid> bids, int free, int[] idleBySlot) {
        int n = bids.size();
        long[] keys = new long[n];
        int[] nodes = new int[n];
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
            Bid b = bids.get(i);
            keys[i] = BidOrder.key(b.limit(), b.running(), i);
            nodes[i] = b.nodes();
            slots[i] = b.clusterSlot();
        }
        Arrays.sort(keys);
        boolean[] accepted = new boolean[n];
        long lowest = walk(keys, n, nodes, slots, idleBySlot.clone(), free, accepted);
        List<Integer> out = new java.util.ArrayList<>();
        for (long key : keys) {
            if (accepted[BidOrder.index(key)]) {
                out.add(BidOrder.index(key));
            }
        }
        return new Result(List.copyOf(out), lowest);
    }

    /**
     * The walk over sorted keys. {@code idleBySlot} is consumed (pass a copy); a slot of -1 has no
     * idle nodes. Marks {@code accepted[index]} and returns the lowest accepted limit, or -1.
     */
    static long walk(long[] sortedKeys, int count, int[] nodesByIndex, int[] slotByIndex, int[] idleBySlot,
                     int free, boolean[] accepted) {
        long lowest = -1;
        int left = Math.max(0, free);
        long idleLeft = 0;
        for (int v : idleBySlot) {
            idleLeft += v;
        }
        for (int k = 0; k < count; k++) {
            if (left == 0 && idleLeft == 0) {
                break;
            }
            long key = sortedKeys[k];
            int i = BidOrder.index(key);
            int need = nodesByIndex[i];
            int slot = slotByIndex[i];
            int own = (slot >= 0 && !BidOrder.running(key)) ? idleBySlot[slot] : 0;
            if (need > left + own) {
                continue;
            }
            int fromIdle = Math.min(own, need);
            if (fromIdle > 0) {
                idleBySlot[slot] -= fromIdle;
                idleLeft -= fromIdle;
            }
            left -= need - fromIdle;
            accepted[i] = true;
            lowest = BidOrder.limit(key);
        }
        return lowest;
    }
}
