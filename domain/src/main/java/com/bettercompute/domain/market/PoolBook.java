package com.bettercompute.domain.market;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A pool's order book: its nodes, free nodes, filed requests in age order, idle nodes by cluster.
 *
 * <p>The columns ({@code seqAt}, {@code jobLimitAt}, …) mirror, per position, the fields of the filed
 * requests that every tick reads. A tick over 100,000 waiting requests then walks a few primitive
 * arrays instead of 100,000 objects scattered on the heap; only gangs that hold nodes are read as
 * objects. The mirror is kept by the few transitions that touch those fields.
 */
final class PoolBook {
    static final byte WAITING = 0;
    static final byte HOLDING = 1;
    static final byte GONE = 2;

    Pool pool;
    final TreeMap<String, Node> nodes = new TreeMap<>();
    final TreeMap<String, Node> free = new TreeMap<>();
    /** Filed requests (waiting, admitted, under notice), oldest first; {@code size} of them are live. */
    ArrayList<MarketRequest> requests = new ArrayList<>();
    final List<MarketRequest> added = new ArrayList<>();
    final List<MarketRequest> reclaiming = new ArrayList<>();
    final Map<TenantCluster, ArrayDeque<NodeGrant>> idle = new LinkedHashMap<>();
    /** Nodes draining after a reclaim at once, in the order they started. */
    final List<Node> draining = new ArrayList<>();
    /** Set when a request leaves the market, so the next tick compacts. */
    boolean dirty;
    /** Nodes in service, not in a base load block and not draining: {@code free + granted}. */
    int supply;
    int granted;
    Money lastPrice;

    long[] seqAt = new long[0];
    long[] jobLimitAt = new long[0];
    TenantCluster[] clusterAt = new TenantCluster[0];
    int[] nodesAt = new int[0];
    int[] gpusAt = new int[0];
    byte[] kindAt = new byte[0];
    Reason[] reasonAt = new Reason[0];

    PoolBook(Pool pool) {
        this.pool = pool;
    }

    /** The position of a filed request, or -1 when it is not merged yet. */
    int indexOf(MarketRequest r) {
        int i = Arrays.binarySearch(seqAt, 0, requests.size(), r.sequence);
        return i >= 0 && requests.get(i) == r ? i : -1;
    }

    void markGone(MarketRequest r) {
        int i = indexOf(r);
        if (i >= 0) {
            kindAt[i] = GONE;
        }
        dirty = true;
    }

    void markKind(MarketRequest r, byte kind) {
        int i = indexOf(r);
        if (i >= 0) {
            kindAt[i] = kind;
        }
    }

    void jobLimitChanged(MarketRequest r) {
        int i = indexOf(r);
        if (i >= 0) {
            jobLimitAt[i] = r.jobLimitMicros;
        }
    }

    /** Drops requests that left the market and merges newly filed ones, keeping age order. */
    void compact() {
        if (!dirty && added.isEmpty()) {
            return;
        }
        dirty = false;
        added.removeIf(r -> !r.phase.filed());
        added.sort(Comparator.comparingLong(r -> r.sequence));
        int n = requests.size();
        int capacity = n + added.size();
        ArrayList<MarketRequest> merged = new ArrayList<>(capacity);
        long[] seq = new long[capacity];
        long[] jobLimit = new long[capacity];
        TenantCluster[] cluster = new TenantCluster[capacity];
        int[] nodeCount = new int[capacity];
        int[] gpus = new int[capacity];
        byte[] kind = new byte[capacity];
        Reason[] reason = new Reason[capacity];
        int m = 0;
        int j = 0;
        for (int i = 0; i <= n; i++) {
            long nextSeq = i < n ? seqAt[i] : Long.MAX_VALUE;
            while (j < added.size() && added.get(j).sequence < nextSeq) {
                MarketRequest r = added.get(j++);
                merged.add(r);
                seq[m] = r.sequence;
                jobLimit[m] = r.jobLimitMicros;
                cluster[m] = r.cluster;
                nodeCount[m] = r.nodes;
                gpus[m] = r.gpus;
                kind[m] = r.phase.holds() ? HOLDING : WAITING;
                reason[m] = r.reason;
                m++;
            }
            if (i == n || kindAt[i] == GONE) {
                continue;
            }
            merged.add(requests.get(i));
            seq[m] = seqAt[i];
            jobLimit[m] = jobLimitAt[i];
            cluster[m] = clusterAt[i];
            nodeCount[m] = nodesAt[i];
            gpus[m] = gpusAt[i];
            kind[m] = kindAt[i];
            reason[m] = reasonAt[i];
            m++;
        }
        added.clear();
        requests = merged;
        seqAt = seq;
        jobLimitAt = jobLimit;
        clusterAt = cluster;
        nodesAt = nodeCount;
        gpusAt = gpus;
        kindAt = kind;
        reasonAt = reason;
        if (requests.size() > BidOrder.MAX_INDEX) {
            throw new IllegalStateException("more than " + BidOrder.MAX_INDEX + " requests in pool " + pool.id());
        }
    }
}
