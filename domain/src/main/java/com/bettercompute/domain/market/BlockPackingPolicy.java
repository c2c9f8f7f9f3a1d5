package com.bettercompute.domain.market;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Packing onto the base load block: requests smaller than one node are seated on the cluster's live
 * block nodes first fit (nodes in id order), taken by priority class then age. They never bid and
 * never run on market nodes; without a live block they wait. A running one is never evicted.
 */
public final class BlockPackingPolicy {
    private BlockPackingPolicy() {
    }

    /** A waiting sub-node request. */
    public record Waiting(String id, PriorityClass priority, long sequence, int gpus) {
    }

    /** Seats what fits: request id to node id, in seating order. {@code freeGpusByNode} is in node order. */
    public static Map<String, String> seat(List<Waiting> waiting, Map<String, Integer> freeGpusByNode) {
        List<Waiting> sorted = new ArrayList<>(waiting);
        sorted.sort(Comparator.comparing(Waiting::priority).thenComparingLong(Waiting::sequence));
        Map<String, Integer> free = new LinkedHashMap<>(freeGpusByNode);
        Map<String, String> seats = new LinkedHashMap<>();
        for (Waiting w : sorted) {
            for (Map.Entry<String, Integer> node : free.entrySet()) {
                if (node.getValue() >= w.gpus()) {
                    node.setValue(node.getValue() - w.gpus());
                    seats.put(w.id(), node.getKey());
                    break;
                }
            }
        }
        return seats;
    }
}
