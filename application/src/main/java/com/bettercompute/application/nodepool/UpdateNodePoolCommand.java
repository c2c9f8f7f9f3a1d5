package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Taint;

import java.util.List;
import java.util.Map;

/**
 * The input of {@code update}. A field left out is not changed; at least one of {@code nodeCount},
 * {@code autoscaling}, {@code labels}, {@code taints} must be given. {@code labels} and {@code taints}
 * replace the pool's whole map and list. {@code "autoscaling": null} turns autoscaling off
 * ({@code autoscalingGiven} true, {@code autoscaling} null).
 */
public record UpdateNodePoolCommand(NodePoolRef ref, Integer nodeCount, boolean autoscalingGiven, Autoscaling autoscaling,
                                    Map<String, String> labels, List<Taint> taints) {

    public UpdateNodePoolCommand {
        labels = labels == null ? null : Map.copyOf(labels);
        taints = taints == null ? null : List.copyOf(taints);
    }
}
