package com.bettercompute.application.provider;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node pool as we want it at the provider.
 *
 * @param name        the pool's name at the provider (our node pool's name)
 * @param machineType the provider's machine type, e.g. {@code a3-highgpu-8g}
 * @param nodeCount   nodes per zone of the pool (GKE counts per zone: a regional pool over three
 *                    zones runs three times this); the initial count when {@code autoscaling} is set
 * @param autoscaling null: a fixed size
 * @param diskGiB     boot disk size; null: the provider's default
 * @param diskType    boot disk type, e.g. {@code pd-balanced}; null: the provider's default
 * @param spot        spot (preemptible) nodes
 * @param accelerator null: none
 * @param zones       the zones of the pool; empty: the cluster's
 * @param labels      Kubernetes labels on every node
 * @param taints      Kubernetes taints on every node
 */
public record NodePoolSpec(
        String name,
        String machineType,
        int nodeCount,
        Autoscaling autoscaling,
        Integer diskGiB,
        String diskType,
        boolean spot,
        Accelerator accelerator,
        List<String> zones,
        Map<String, String> labels,
        List<Taint> taints) {

    public NodePoolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(machineType, "machineType");
        zones = zones == null ? List.of() : List.copyOf(zones);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = taints == null ? List.of() : List.copyOf(taints);
    }

    /** A pool of {@code nodeCount} machines with every optional field at its default. */
    public static NodePoolSpec of(String name, String machineType, int nodeCount) {
        return new NodePoolSpec(name, machineType, nodeCount, null, null, null, false, null, List.of(), Map.of(), List.of());
    }
}
