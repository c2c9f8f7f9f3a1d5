package com.bettercompute.application.reconcile;

import com.bettercompute.application.provider.Autoscaling;
import com.bettercompute.application.provider.ClusterChange;
import com.bettercompute.application.provider.ClusterSpec;
import com.bettercompute.application.provider.NodePoolSpec;

/**
 * The one provider call a reconcile pass makes, decided before it is made. Its {@link #label()} is
 * saved on the cluster as the intent before the call, so a pass can tell "I asked for this and it did
 * not happen" from "nobody asked yet".
 */
public sealed interface ProviderAction {
    String label();

    /** Nothing to ask: wait, or everything is as wanted. */
    record None() implements ProviderAction {
        public String label() {
            return null;
        }
    }

    /** Create the control plane (Standard: with the provider's temporary pool). */
    record CreateCluster(ClusterSpec spec) implements ProviderAction {
        public String label() {
            return "create-cluster";
        }
    }

    /** One in-place change of the control plane. */
    record ChangeCluster(ClusterChange change) implements ProviderAction {
        public String label() {
            if (change instanceof ClusterChange.MasterVersion v) {
                return "set-version " + v.version();
            }
            if (change instanceof ClusterChange.Channel ch) {
                return "set-release-channel " + ch.channel().name().toLowerCase();
            }
            return "set-authorized-networks " + String.join(",", ((ClusterChange.AuthorizedNetworks) change).cidrs());
        }
    }

    /** Delete the cluster and its node pools. */
    record DeleteCluster() implements ProviderAction {
        public String label() {
            return "delete-cluster";
        }
    }

    /** Create one of the cluster's node pools. */
    record CreateNodePool(NodePoolSpec spec) implements ProviderAction {
        public String label() {
            return "create-node-pool " + spec.name();
        }
    }

    /** Delete a node pool (the provider's temporary one, or one the tenant removed). */
    record DeleteNodePool(String name) implements ProviderAction {
        public String label() {
            return "delete-node-pool " + name;
        }
    }

    /** Resize a node pool. */
    record ResizeNodePool(String name, int nodeCount) implements ProviderAction {
        public String label() {
            return "resize-node-pool " + name + " " + nodeCount;
        }
    }

    /** Turn a pool's autoscaling on with bounds, or off (null). */
    record SetAutoscaling(String name, Autoscaling autoscaling) implements ProviderAction {
        public String label() {
            return "set-autoscaling " + name + " " + (autoscaling == null ? "off" : autoscaling.minNodes() + "-" + autoscaling.maxNodes());
        }
    }

    /** Replace a pool's Kubernetes labels and taints in place. The label names them by a short hash, to stay short. */
    record SetLabelsAndTaints(String name, java.util.Map<String, String> labels, java.util.List<com.bettercompute.application.provider.Taint> taints)
            implements ProviderAction {
        public SetLabelsAndTaints {
            labels = java.util.Map.copyOf(labels);
            taints = java.util.List.copyOf(taints);
        }

        public String label() {
            String wanted = new java.util.TreeMap<>(labels) + "|" + taints;
            return "set-labels-taints " + name + " " + com.bettercompute.domain.cluster.Ids.sha256Hex(wanted).substring(0, 12);
        }
    }

    /** The node pool the action is about; null for the cluster's own. */
    static String poolName(ProviderAction a) {
        if (a instanceof CreateNodePool c) {
            return c.spec().name();
        }
        if (a instanceof DeleteNodePool d) {
            return d.name();
        }
        if (a instanceof ResizeNodePool r) {
            return r.name();
        }
        if (a instanceof SetAutoscaling s) {
            return s.name();
        }
        if (a instanceof SetLabelsAndTaints l) {
            return l.name();
        }
        return null;
    }
}
