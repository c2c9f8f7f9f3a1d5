package com.bettercompute.application.nodepool;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.input.Input;

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

    public static UpdateNodePoolCommand from(Object body) {
        Input in = Input.of(body);
        NodePoolRef ref = NodePoolRef.read(in);
        Integer nodeCount = in.integer("nodeCount", false, 0, 1000);
        boolean autoscalingGiven = in.present("autoscaling");
        Autoscaling autoscaling = CreateClusterCommand.autoscaling(in);
        boolean labelsGiven = in.has("labels");
        Map<String, String> labels = CreateClusterCommand.labels(in);
        boolean taintsGiven = in.has("taints");
        List<Taint> taints = CreateClusterCommand.taints(in);
        boolean any = in.has("nodeCount") || autoscalingGiven || labelsGiven || taintsGiven;
        in.finish();
        if (!any && in.valid()) {
            in.reject("", "name at least one of nodeCount, autoscaling, labels, taints");
        }
        in.throwIfInvalid();
        return new UpdateNodePoolCommand(ref, nodeCount, autoscalingGiven, autoscaling,
                labelsGiven ? labels : null, taintsGiven ? taints : null);
    }
}
