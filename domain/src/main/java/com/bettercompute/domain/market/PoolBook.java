package com.bettercompute.domain.market;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A pool's order book: its nodes, free nodes, filed requests in age order, idle nodes by cluster. */
final class PoolBook {
    Pool pool;
    final TreeMap<String, Node> nodes = new TreeMap<>();
    final TreeMap<String, Node> free = new TreeMap<>();
    /** Filed requests (waiting, admitted, under notice), oldest first. */
    ArrayList<MarketRequest> requests = new ArrayList<>();
    final List<MarketRequest> added = new ArrayList<>();
    final List<MarketRequest> reclaiming = new ArrayList<>();
    final Map<TenantCluster, ArrayDeque<NodeGrant>> idle = new LinkedHashMap<>();
    /** Set when a request leaves the market, so the next tick compacts. */
    boolean dirty;
    int supply;
    int granted;
    Money lastPrice;

    long[] keys = new long[0];
    int[] nodesByIndex = new int[0];
    int[] slots = new int[0];
    int[] holders = new int[0];
    byte[] kinds = new byte[0];
    boolean[] accepted = new boolean[0];

    PoolBook(Pool pool) {
        this.pool = pool;
    }

    int idleCount() {
        int n = 0;
        for (ArrayDeque<NodeGrant> q : idle.values()) {
            n += q.size();
        }
        return n;
    }

    /** Drops requests that left the market and merges newly filed ones, keeping age order. */
    void compact() {
        if (!dirty && added.isEmpty()) {
            return;
        }
        dirty = false;
        added.removeIf(r -> !r.phase.filed());
        added.sort(Comparator.comparingLong(r -> r.sequence));
        ArrayList<MarketRequest> merged = new ArrayList<>(requests.size() + added.size());
        int j = 0;
        for (MarketRequest r : requests) {
            if (!r.phase.filed()) {
                continue;
            }
            while (j < added.size() && added.get(j).sequence < r.sequence) {
                merged.add(added.get(j++));
            }
            merged.add(r);
        }
        while (j < added.size()) {
            merged.add(added.get(j++));
        }
        added.clear();
        requests = merged;
        if (requests.size() > BidOrder.MAX_INDEX) {
            throw new IllegalStateException("more than " + BidOrder.MAX_INDEX + " requests in pool " + pool.id());
        }
    }

    void ensureScratch(int n) {
        if (keys.length < n) {
            int size = Math.max(n, keys.length * 3 / 2 + 16);
            keys = new long[size];
            nodesByIndex = new int[size];
            slots = new int[size];
            holders = new int[size];
            kinds = new byte[size];
            accepted = new boolean[size];
        }
    }
}
