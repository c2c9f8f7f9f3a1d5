package com.bettercompute.adapters.gke.simulator;

import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterUpdate;
import com.google.container.v1.NodeLabels;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.NodeTaints;

/**
 * What an operation does to its cluster when it ends, as data rather than a closure, so an operation
 * still running when the simulator stops is saved with its state and completes after a restart.
 * Pool effects name the pool; an effect whose cluster or pool is gone by then does nothing.
 */
sealed interface Effect {

    /** Records the operation and changes nothing (labels were set at once; an auto-upgrade was applied at once). */
    record Nothing() implements Effect {}

    /** PROVISIONING → RUNNING with its pools; on failure ERROR with the message. */
    record CreateCluster() implements Effect {}

    /** The cluster goes away; on failure it is back in {@code before} (RUNNING unless it was ERROR). */
    record DeleteCluster(Cluster.Status before) implements Effect {}

    /**
     * A cluster-level change made while RECONCILING, as the one resolved field of a ClusterUpdate:
     * {@code desired_master_version}, {@code desired_release_channel},
     * {@code desired_master_authorized_networks_config} or {@code desired_default_enable_private_nodes}.
     */
    record ChangeCluster(ClusterUpdate change) implements Effect {}

    record CreatePool(String pool) implements Effect {}

    record DeletePool(String pool, NodePool.Status before) implements Effect {}

    record ResizePool(String pool, int nodeCount) implements Effect {}

    record AutoscalePool(String pool, NodePoolAutoscaling autoscaling) implements Effect {}

    /** Either list may be null: only the lists given replace the pool's. */
    record RelabelPool(String pool, NodeLabels labels, NodeTaints taints) implements Effect {}

    record UpgradePool(String pool, String version) implements Effect {}
}
