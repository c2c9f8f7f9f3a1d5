package com.bettercompute.domain.cluster;

import java.util.List;
import java.util.Map;

/**
 * What the tenant asked of a node pool, with defaults applied; labels sorted by key. {@code autoscaling} and
 * {@code accelerators} may be null; collections are never null.
 */
public record NodePoolSpec(
        String name,
        String machineType,
        int nodeCount,
        Autoscaling autoscaling,
        int diskGiB,
        String diskType,
        boolean spot,
        Accelerators accelerators,
        List<String> zones,
        Map<String, String> labels,
        List<Taint> taints) {

    public static final int DEFAULT_DISK_GIB = 100;
    public static final String DEFAULT_DISK_TYPE = "pd-balanced";

    public NodePoolSpec {
        zones = List.copyOf(zones);
        labels = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
        taints = List.copyOf(taints);
    }
}
