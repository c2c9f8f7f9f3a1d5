package com.bettercompute.adapters.k8s.simulator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the Deployment and ReplicaSet controllers do in one simulated cluster, one round at a time: a
 * Deployment keeps one ReplicaSet per pod template ({@code <deployment>-<pod-template-hash>}) at its replicas
 * and scales the others to zero (a rollout in one step: the simulation has no {@code maxSurge} or
 * {@code maxUnavailable} pacing); a ReplicaSet makes pods until it has its replicas and deletes the surplus,
 * unscheduled pods first, then the newest; both report their replicas in their status. A ReplicaSet whose
 * Deployment is gone goes (the garbage collector).
 */
final class SimulatedDeployments {
    static final String DEPLOYMENTS_API = "/apis/apps/v1";
    static final String DEPLOYMENTS = DEPLOYMENTS_API + "/deployments";
    static final String REPLICA_SETS = DEPLOYMENTS_API + "/replicasets";
    static final String HASH_LABEL = "pod-template-hash";
    static final String REVISION = "deployment.kubernetes.io/revision";

    private final ClusterStore store;
    private final SimulatedPods pods;

    SimulatedDeployments(ClusterStore store, SimulatedPods pods) {
        this.store = store;
        this.pods = pods;
    }

    void reconcile(Instant now) {
        String stamp = now.toString();
        List<Map<String, Object>> deployments = store.list(DEPLOYMENTS);
        Set<String> uids = new HashSet<>();
        deployments.forEach(d -> uids.add(SimulatedKueue.uid(d)));
        List<Map<String, Object>> sets = new ArrayList<>();
        for (Map<String, Object> rs : store.list(REPLICA_SETS)) {
            Map<String, Object> owner = SimulatedPods.controllerOf(rs);
            if (owner != null && "Deployment".equals(owner.get("kind")) && !uids.contains(String.valueOf(owner.get("uid")))) {
                store.delete(path(rs, "replicasets"));
            } else {
                sets.add(rs);
            }
        }
        for (Map<String, Object> d : deployments) {
            syncDeployment(d, sets.stream().filter(rs -> SimulatedKueue.uid(d).equals(SimulatedPods.ownerUid(rs))).toList(), stamp);
        }
        List<Map<String, Object>> all = store.list("/api/v1/pods");
        for (Map<String, Object> rs : store.list(REPLICA_SETS)) {
            syncReplicaSet(rs, all, now);
        }
    }

    // ---------------------------------------------------------------- Deployment

    private void syncDeployment(Map<String, Object> d, List<Map<String, Object>> owned, String stamp) {
        Map<String, Object> template = Obj.copy(Obj.map(Obj.at(d, "spec", "template")));
        String hash = SimulatedKueue.hash(store.asJson(template)).substring(0, 10);
        String current = Obj.name(d) + "-" + hash;
        long replicas = Obj.num(d, 1, "spec", "replicas");
        long revision = 0;
        Map<String, Object> currentSet = null;
        for (Map<String, Object> rs : owned) {
            revision = Math.max(revision, number(Obj.annotations(rs).get(REVISION)));
            if (current.equals(Obj.name(rs))) {
                currentSet = rs;
            } else if (Obj.num(rs, 0, "spec", "replicas") != 0) {
                Map<String, Object> scaled = Obj.copy(rs);
                Obj.child(scaled, "spec").put("replicas", 0);
                store.replace(path(rs, "replicasets"), scaled);
            }
        }
        if (currentSet == null) {
            Obj.child(template, "metadata", "labels").put(HASH_LABEL, hash);
            Map<String, Object> selector = Obj.copy(Obj.map(Obj.at(d, "spec", "selector")));
            Obj.child(selector, "matchLabels").put(HASH_LABEL, hash);
            Map<String, Object> metadata = new LinkedHashMap<>();
            metadata.put("name", current);
            metadata.put("namespace", Obj.namespace(d));
            Map<String, Object> labels = new LinkedHashMap<>(Obj.map(Obj.at(template, "metadata", "labels")));
            metadata.put("labels", labels);
            metadata.put("annotations", Map.of(REVISION, Long.toString(revision + 1)));
            metadata.put("ownerReferences", List.of(SimulatedKueue.owner("apps/v1", "Deployment", d)));
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("replicas", replicas);
            spec.put("selector", selector);
            spec.put("template", template);
            Map<String, Object> rs = new LinkedHashMap<>();
            rs.put("apiVersion", "apps/v1");
            rs.put("kind", "ReplicaSet");
            rs.put("metadata", metadata);
            rs.put("spec", spec);
            currentSet = store.create(DEPLOYMENTS_API + "/namespaces/" + Obj.namespace(d) + "/replicasets", rs);
        } else if (Obj.num(currentSet, 1, "spec", "replicas") != replicas) {
            Map<String, Object> scaled = Obj.copy(currentSet);
            Obj.child(scaled, "spec").put("replicas", replicas);
            currentSet = store.replace(path(currentSet, "replicasets"), scaled);
        }
        long total = 0;
        long ready = 0;
        for (Map<String, Object> rs : owned) {
            total += Obj.num(rs, 0, "status", "replicas");
            ready += Obj.num(rs, 0, "status", "readyReplicas");
        }
        long updated = currentSet == null ? 0 : Obj.num(currentSet, 0, "status", "replicas");
        Map<String, Object> changed = Obj.copy(d);
        Map<String, Object> status = Obj.child(changed, "status");
        status.put("observedGeneration", Obj.num(d, 1, "metadata", "generation"));
        status.put("replicas", total);
        status.put("updatedReplicas", updated);
        status.put("readyReplicas", ready);
        status.put("availableReplicas", ready);
        status.put("unavailableReplicas", Math.max(0, replicas - ready));
        // as with the default strategy: at most a quarter of the replicas (rounded down) may be unavailable
        boolean available = ready >= replicas - replicas / 4;
        Obj.setCondition(changed, "Available", available ? "True" : "False",
                available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                available ? "Deployment has minimum availability." : "Deployment does not have minimum availability.", stamp);
        boolean complete = updated == replicas && ready >= replicas;
        Obj.setCondition(changed, "Progressing", "True", complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
                "ReplicaSet \"" + current + "\" " + (complete ? "has successfully progressed." : "is progressing."), stamp);
        if (!changed.equals(d)) {
            store.replace(path(d, "deployments"), changed);
        }
    }

    // ---------------------------------------------------------------- ReplicaSet

    private void syncReplicaSet(Map<String, Object> rs, List<Map<String, Object>> all, Instant now) {
        String uid = SimulatedKueue.uid(rs);
        List<Map<String, Object>> active = new ArrayList<>(all.stream().filter(p -> uid.equals(SimulatedPods.ownerUid(p)))
                .filter(p -> !terminal(p) && Obj.at(p, "metadata", "deletionTimestamp") == null).toList());
        long replicas = Obj.num(rs, 1, "spec", "replicas");
        long missing = replicas - active.size() - pods.inAdmission(uid);
        if (missing > 0 && !pods.backingOff(uid, now)) {
            for (long i = 0; i < missing; i++) {
                Map<String, Object> created = pods.createPod(pod(rs, Obj.name(rs) + "-" + pods.suffix(), "ReplicaSet", "apps/v1"));
                if (created != null) {
                    active.add(created);
                }
            }
        } else if (missing < 0) {
            // as the ReplicaSet controller: unscheduled pods go first, then pods not running, then the newest
            List<Map<String, Object>> order = new ArrayList<>(active);
            order.sort(Comparator.<Map<String, Object>>comparingInt(p -> Obj.str(p, "spec", "nodeName") == null ? 0 : 1)
                    .thenComparingInt(p -> "Running".equals(Obj.str(p, "status", "phase")) ? 1 : 0)
                    .thenComparing(p -> String.valueOf(Obj.str(p, "metadata", "creationTimestamp")), Comparator.reverseOrder()));
            for (Map<String, Object> p : order.subList(0, (int) Math.min(order.size(), -missing))) {
                pods.terminate(p, SimulatedPods.graceOf(p), now);
                active.remove(p);
            }
        }
        long ready = active.stream().filter(p -> "Running".equals(Obj.str(p, "status", "phase"))).count();
        Map<String, Object> changed = Obj.copy(rs);
        Map<String, Object> status = Obj.child(changed, "status");
        status.put("replicas", active.size());
        status.put("fullyLabeledReplicas", active.size());
        status.put("readyReplicas", ready);
        status.put("availableReplicas", ready);
        status.put("observedGeneration", Obj.num(rs, 1, "metadata", "generation"));
        if (!changed.equals(rs)) {
            store.replace(path(rs, "replicasets"), changed);
        }
    }

    /** A pod of a controller's template ({@code spec.template}): its labels and annotations, owned by the controller, Pending. */
    static Map<String, Object> pod(Map<String, Object> controller, String name, String kind, String apiVersion) {
        return pod(Obj.map(Obj.at(controller, "spec", "template")), controller, name, kind, apiVersion, "Always");
    }

    /** A pod of this template, owned by the controller, Pending; {@code restartPolicy} when the template names none. */
    static Map<String, Object> pod(Map<String, Object> podTemplate, Map<String, Object> controller, String name, String kind,
                                   String apiVersion, String restartPolicy) {
        Map<String, Object> template = Obj.copy(podTemplate);
        Map<String, Object> metadata = Obj.child(template, "metadata");
        metadata.put("name", name);
        metadata.put("namespace", Obj.namespace(controller));
        metadata.put("ownerReferences", List.of(SimulatedKueue.owner(apiVersion, kind, controller)));
        Map<String, Object> spec = Obj.child(template, "spec");
        spec.putIfAbsent("restartPolicy", restartPolicy);
        Map<String, Object> pod = new LinkedHashMap<>();
        pod.put("apiVersion", "v1");
        pod.put("kind", "Pod");
        pod.put("metadata", metadata);
        pod.put("spec", spec);
        pod.put("status", new LinkedHashMap<>(Map.of("phase", "Pending")));
        return pod;
    }

    static boolean terminal(Map<String, Object> pod) {
        String phase = Obj.str(pod, "status", "phase");
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static long number(Object text) {
        return text != null && text.toString().matches("\\d{1,18}") ? Long.parseLong(text.toString()) : 0;
    }

    static String path(Map<String, Object> object, String plural) {
        return DEPLOYMENTS_API + "/namespaces/" + Obj.namespace(object) + "/" + plural + "/" + Obj.name(object);
    }
}
