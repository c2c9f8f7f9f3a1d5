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
        Walk walk = new Walk(nodesByIndex, slotByIndex, idleBySlot, free, accepted);
        walk.over(sortedKeys, 0, count);
        return walk.lowest;
    }

    /**
     * Sorts {@code keys[0, count)} only as far as the walk needs, and walks them ({@link #walk}). The
     * keys up to {@code aheadUpTo} (in a tick, the bidders at or above the pool's last price) are
     * sorted and walked first; the others only when supply is left after them. Every key ahead sorts
     * before every other, so the walk meets the bidders in market order either way and decides as
     * after a full sort; in a steady pool most bidders are never sorted, and with nothing to give
     * none is. The keys after the point where the walk stopped are left in no particular order, and
     * none of them is accepted.
     */
    static long sortAndWalk(long[] keys, int count, long aheadUpTo, int[] nodesByIndex, int[] slotByIndex,
                            int[] idleBySlot, int free, boolean[] accepted) {
        Walk walk = new Walk(nodesByIndex, slotByIndex, idleBySlot, free, accepted);
        if (walk.full()) {
            return walk.lowest;
        }
        int ahead = partition(keys, count, aheadUpTo);
        Arrays.sort(keys, 0, ahead);
        walk.over(keys, 0, ahead);
        if (!walk.full()) {
            Arrays.sort(keys, ahead, count);
            walk.over(keys, ahead, count);
        }
        return walk.lowest;
    }

    /** Moves the keys up to {@code bound} to the front, returning how many there are. */
    private static int partition(long[] keys, int count, long bound) {
        int ahead = 0;
        for (int k = 0; k < count; k++) {
            long key = keys[k];
            if (key <= bound) {
                keys[k] = keys[ahead];
                keys[ahead++] = key;
            }
        }
        return ahead;
    }

    /** The walk's state, so it can go over the sorted keys in stretches. */
    private static final class Walk {
        private final int[] nodesByIndex;
        private final int[] slotByIndex;
        private final int[] idleBySlot;
        private final boolean[] accepted;
        private int left;
        private long idleLeft;
        private long lowest = -1;

        Walk(int[] nodesByIndex, int[] slotByIndex, int[] idleBySlot, int free, boolean[] accepted) {
            this.nodesByIndex = nodesByIndex;
            this.slotByIndex = slotByIndex;
            this.idleBySlot = idleBySlot;
            this.accepted = accepted;
            this.left = Math.max(0, free);
            for (int v : idleBySlot) {
                idleLeft += v;
            }
        }

        /** Nothing left to give: no free node and no idle one. */
        boolean full() {
            return left == 0 && idleLeft == 0;
        }

        void over(long[] sortedKeys, int from, int to) {
            for (int k = from; k < to && !full(); k++) {
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
        }
    }
}
