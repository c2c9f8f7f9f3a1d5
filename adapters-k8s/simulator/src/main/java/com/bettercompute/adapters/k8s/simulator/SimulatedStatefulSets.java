package com.bettercompute.adapters.k8s.simulator;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the StatefulSet controller does in one simulated cluster, one round at a time: pods
 * {@code <set>-<ordinal>} with stable names, made again under the same name when one goes; with the default
 * {@code OrderedReady} policy a pod is made only once every lower ordinal runs, and a scale-down removes the
 * highest ordinal first, one at a time; with {@code Parallel} all at once. The status counts the pods.
 */
final class SimulatedStatefulSets {
    static final String STATEFUL_SETS = SimulatedDeployments.DEPLOYMENTS_API + "/statefulsets";
    static final String POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
    static final String POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

    private final ClusterStore store;
    private final SimulatedPods pods;

    SimulatedStatefulSets(ClusterStore store, SimulatedPods pods) {
        this.store = store;
        this.pods = pods;
    }

    void reconcile(Instant now) {
        List<Map<String, Object>> all = null;
        for (Map<String, Object> set : store.list(STATEFUL_SETS)) {
            if (all == null) {
                all = store.list("/api/v1/pods");
            }
            sync(set, all, now);
        }
    }

    private void sync(Map<String, Object> set, List<Map<String, Object>> all, Instant now) {
        String uid = SimulatedKueue.uid(set);
        String name = Obj.name(set);
        TreeMap<Integer, Map<String, Object>> byOrdinal = new TreeMap<>();
        for (Map<String, Object> p : all) {
            if (uid.equals(SimulatedPods.ownerUid(p))) {
                String podName = Obj.name(p);
                String ordinal = podName.startsWith(name + "-") ? podName.substring(name.length() + 1) : "";
                if (ordinal.matches("\\d{1,9}")) {
                    byOrdinal.put(Integer.parseInt(ordinal), p);
                }
            }
        }
        long replicas = Obj.num(set, 1, "spec", "replicas");
        boolean parallel = "Parallel".equals(Obj.str(set, "spec", "podManagementPolicy"));
        boolean blocked = false;
        for (int i = 0; i < replicas && !blocked && !pods.backingOff(uid, now) && pods.inAdmission(uid) == 0; i++) {
            Map<String, Object> existing = byOrdinal.get(i);
            if (existing == null) {
                Map<String, Object> pod = SimulatedDeployments.pod(set, name + "-" + i, "StatefulSet", "apps/v1");
                Map<String, Object> labels = Obj.child(pod, "metadata", "labels");
                labels.put(POD_NAME_LABEL, name + "-" + i);
                labels.put(POD_INDEX_LABEL, Integer.toString(i));
                Map<String, Object> spec = Obj.child(pod, "spec");
                spec.put("hostname", name + "-" + i);
                if (Obj.str(set, "spec", "serviceName") != null) {
                    spec.put("subdomain", Obj.str(set, "spec", "serviceName"));
                }
                existing = pods.createPod(pod);
                blocked = !parallel;
            } else if (!parallel && !"Running".equals(Obj.str(existing, "status", "phase"))) {
                blocked = true;
            }
        }
        boolean removing = false;
        for (Map<String, Object> p : byOrdinal.descendingMap().values()) {
            int ordinal = Integer.parseInt(Obj.name(p).substring(name.length() + 1));
            if (ordinal < replicas) {
                break;
            }
            if (Obj.at(p, "metadata", "deletionTimestamp") != null) {
                removing = true;
            } else if (parallel || !removing) {
                pods.terminate(p, SimulatedPods.graceOf(p), now);
                removing = true;
            }
        }
        long current = byOrdinal.values().stream().filter(p -> Obj.at(p, "metadata", "deletionTimestamp") == null).count();
        long ready = byOrdinal.values().stream().filter(p -> "Running".equals(Obj.str(p, "status", "phase"))).count();
        Map<String, Object> changed = Obj.copy(set);
        Map<String, Object> status = Obj.child(changed, "status");
        status.put("observedGeneration", Obj.num(set, 1, "metadata", "generation"));
        status.put("replicas", current);
        status.put("currentReplicas", current);
        status.put("updatedReplicas", current);
        status.put("readyReplicas", ready);
        status.put("availableReplicas", ready);
        if (!changed.equals(set)) {
            store.replace(SimulatedDeployments.path(set, "statefulsets"), changed);
        }
    }
}
