package com.bettercompute.adapters.k8s.simulator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the DaemonSet controller does in one simulated cluster, one round at a time: one pod on every node
 * whose labels its node selector allows and whose {@code NoSchedule} and {@code NoExecute} taints it
 * tolerates, pinned there by a required node affinity on the node's name as the controller writes it (with
 * the tolerations the controller adds for a node not ready, unreachable or cordoned); a pod on a node it no
 * longer fits goes. The status counts the pods.
 */
final class SimulatedDaemonSets {
    static final String DAEMON_SETS = SimulatedDeployments.DEPLOYMENTS_API + "/daemonsets";
    /** The tolerations the DaemonSet controller gives every pod it makes. */
    private static final List<Map<String, Object>> DEFAULT_TOLERATIONS = List.of(
            Map.of("key", "node.kubernetes.io/not-ready", "operator", "Exists", "effect", "NoExecute"),
            Map.of("key", "node.kubernetes.io/unreachable", "operator", "Exists", "effect", "NoExecute"),
            Map.of("key", "node.kubernetes.io/unschedulable", "operator", "Exists", "effect", "NoSchedule"));

    private final ClusterStore store;
    private final SimulatedPods pods;

    SimulatedDaemonSets(ClusterStore store, SimulatedPods pods) {
        this.store = store;
        this.pods = pods;
    }

    void reconcile(Instant now) {
        List<Map<String, Object>> sets = store.list(DAEMON_SETS);
        if (sets.isEmpty()) {
            return;
        }
        List<Map<String, Object>> nodes = store.list("/api/v1/nodes");
        List<Map<String, Object>> all = store.list("/api/v1/pods");
        for (Map<String, Object> set : sets) {
            sync(set, nodes, all, now);
        }
    }

    private void sync(Map<String, Object> set, List<Map<String, Object>> nodes, List<Map<String, Object>> all, Instant now) {
        String uid = SimulatedKueue.uid(set);
        Map<String, Map<String, Object>> byNode = new HashMap<>();
        for (Map<String, Object> p : all) {
            if (uid.equals(SimulatedPods.ownerUid(p)) && Obj.at(p, "metadata", "deletionTimestamp") == null
                    && !SimulatedDeployments.terminal(p)) {
                byNode.put(pinnedTo(p), p);
            }
        }
        List<Object> tolerations = new ArrayList<>(Obj.list(Obj.at(set, "spec", "template", "spec", "tolerations")));
        tolerations.addAll(DEFAULT_TOLERATIONS);
        Map<String, Object> selector = Obj.map(Obj.at(set, "spec", "template", "spec", "nodeSelector"));
        long desired = 0;
        long ready = 0;
        long scheduled = 0;
        for (Map<String, Object> node : nodes) {
            String name = Obj.name(node);
            boolean fits = selector.entrySet().stream().allMatch(e -> e.getValue().equals(Obj.labels(node).get(e.getKey())))
                    && Obj.list(Obj.at(node, "spec", "taints")).stream().map(Obj::map)
                    .allMatch(t -> "PreferNoSchedule".equals(t.get("effect")) || SimulatedPods.tolerates(tolerations, t));
            Map<String, Object> existing = byNode.remove(name);
            if (!fits) {
                if (existing != null) {
                    pods.terminate(existing, SimulatedPods.graceOf(existing), now);
                }
                continue;
            }
            desired++;
            if (existing != null) {
                scheduled++;
                ready += "Running".equals(Obj.str(existing, "status", "phase")) ? 1 : 0;
            } else if (!pods.backingOff(uid, now) && pods.inAdmission(uid) == 0) {
                Map<String, Object> pod = SimulatedDeployments.pod(set, Obj.name(set) + "-" + pods.suffix(), "DaemonSet", "apps/v1");
                Map<String, Object> spec = Obj.child(pod, "spec");
                spec.put("tolerations", tolerations);
                spec.put("affinity", Map.of("nodeAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution",
                        Map.of("nodeSelectorTerms", List.of(Map.of("matchFields",
                                List.of(Map.of("key", "metadata.name", "operator", "In", "values", List.of(name)))))))));
                if (pods.createPod(pod) != null) {
                    scheduled++;
                }
            }
        }
        for (Map<String, Object> stray : byNode.values()) {
            // its node is gone: the pod goes with it (the simulated kubelet's side removes it)
            pods.terminate(stray, 0, now);
        }
        Map<String, Object> changed = Obj.copy(set);
        Map<String, Object> status = Obj.child(changed, "status");
        status.put("observedGeneration", Obj.num(set, 1, "metadata", "generation"));
        status.put("desiredNumberScheduled", desired);
        status.put("currentNumberScheduled", scheduled);
        status.put("updatedNumberScheduled", scheduled);
        status.put("numberMisscheduled", 0);
        status.put("numberReady", ready);
        status.put("numberAvailable", ready);
        if (!changed.equals(set)) {
            store.replace(SimulatedDeployments.path(set, "daemonsets"), changed);
        }
    }

    /** The node a DaemonSet pod is pinned to by its affinity (its node name when bound), or "" when none. */
    private static String pinnedTo(Map<String, Object> pod) {
        for (Object term : Obj.list(Obj.at(pod, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms"))) {
            for (Object field : Obj.list(Obj.map(term).get("matchFields"))) {
                List<Object> values = Obj.list(Obj.map(field).get("values"));
                if (!values.isEmpty()) {
                    return String.valueOf(values.get(0));
                }
            }
        }
        String node = Obj.str(pod, "spec", "nodeName");
        return node == null ? "" : node;
    }
}
