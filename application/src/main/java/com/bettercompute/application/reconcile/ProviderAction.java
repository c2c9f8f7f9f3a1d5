package com.bettercompute.application.reconcile;

import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one provider call a reconcile pass makes, decided before it is made. Its {@link #label()} is
 * saved on the cluster as the intent before the call, so a pass can tell "I asked for this and it did
 * not happen" from "nobody asked yet". {@link #call} makes it and returns the operation it started.
 */
public sealed interface ProviderAction {
    String label();

    /** Makes the call; the provider's operation name, or null when it started none. */
    String call(ClusterProvider provider, ClusterLocator at);

    /** The node pool the action is about; null for the cluster's own. */
    default String pool() {
        return null;
    }

    /** Create the control plane (Standard: with the provider's temporary pool). */
    record CreateCluster(ClusterSpec spec) implements ProviderAction {
        public String label() {
            return "create-cluster";
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.createCluster(spec);
        }
    }

    /** One in-place change of the control plane. */
    record ChangeCluster(ClusterChange change) implements ProviderAction {
        public String label() {
            if (change instanceof ClusterChange.MasterVersion v) {
                return "set-version " + v.version();
            }
            if (change instanceof ClusterChange.Channel ch) {
                return "set-release-channel " + ch.channel().wire();
            }
            if (change instanceof ClusterChange.IdentityService id) {
                return "set-identity-service " + (id.enabled() ? "on" : "off");
            }
            return "set-authorized-networks " + String.join(",", ((ClusterChange.AuthorizedNetworks) change).cidrs());
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.updateCluster(at, change);
        }
    }

    /** Delete the cluster and its node pools. */
    record DeleteCluster() implements ProviderAction {
        public String label() {
            return "delete-cluster";
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.deleteCluster(at);
        }
    }

    /** Create one of the cluster's node pools. */
    record CreateNodePool(NodePoolSpec spec) implements ProviderAction {
        public String label() {
            return "create-node-pool " + spec.name();
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.createNodePool(at, spec);
        }

        public String pool() {
            return spec.name();
        }
    }

    /** Delete a node pool (the provider's temporary one, or one the tenant removed). */
    record DeleteNodePool(String name) implements ProviderAction {
        public String label() {
            return "delete-node-pool " + name;
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.deleteNodePool(at, name);
        }

        public String pool() {
            return name;
        }
    }

    /** Resize a node pool. */
    record ResizeNodePool(String name, int nodeCount) implements ProviderAction {
        public String label() {
            return "resize-node-pool " + name + " " + nodeCount;
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.resizeNodePool(at, name, nodeCount);
        }

        public String pool() {
            return name;
        }
    }

    /** Turn a pool's autoscaling on with bounds, or off (null). */
    record SetAutoscaling(String name, Autoscaling autoscaling) implements ProviderAction {
        public String label() {
            return "set-autoscaling " + name + " " + (autoscaling == null ? "off" : autoscaling.minNodes() + "-" + autoscaling.maxNodes());
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.setNodePoolAutoscaling(at, name, autoscaling);
        }

        public String pool() {
            return name;
        }
    }

    /** Replace a pool's Kubernetes labels and taints in place. The label names them by a short hash, to stay short. */
    record SetLabelsAndTaints(String name, Map<String, String> labels, List<Taint> taints) implements ProviderAction {
        public SetLabelsAndTaints {
            labels = Map.copyOf(labels);
            taints = List.copyOf(taints);
        }

        public String label() {
            String wanted = new TreeMap<>(labels) + "|" + taints;
            return "set-labels-taints " + name + " " + Ids.sha256Hex(wanted).substring(0, 12);
        }

        public String call(ClusterProvider provider, ClusterLocator at) {
            return provider.updateNodePoolLabelsAndTaints(at, name, labels, taints);
        }

        public String pool() {
            return name;
        }
    }
}
