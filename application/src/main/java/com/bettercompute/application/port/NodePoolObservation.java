package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Taint;

import java.util.List;
import java.util.Map;

/**
 * A node pool as the provider reports it.
 *
 * @param nodeCount     nodes per zone, as last set (created with or resized to)
 * @param statusMessage the provider's message when the pool is in error; null otherwise
 * @param taints        a taint without a value has a null value, as in the domain
 */
public record NodePoolObservation(
        String name,
        NodePoolStatus status,
        String version,
        int nodeCount,
        Autoscaling autoscaling,
        String machineType,
        Integer diskGiB,
        String diskType,
        boolean spot,
        Accelerators accelerator,
        List<String> zones,
        Map<String, String> labels,
        List<Taint> taints,
        String statusMessage) {

    public NodePoolObservation {
        zones = zones == null ? List.of() : List.copyOf(zones);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = taints == null ? List.of() : List.copyOf(taints);
    }
}
