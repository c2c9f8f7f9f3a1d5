package com.bettercompute.adapters.k8s.simulator;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the MPI Operator ({@code kubeflow.org/v2beta1} MPIJob) does in one simulated cluster where it runs, one
 * round at a time: a ConfigMap {@code <job>-config} with the hostfile, the workers as pods
 * {@code <job>-worker-<index>} and the launcher as the pod {@code <job>-launcher} (at start, or once every
 * worker runs with {@code launcherCreationPolicy: WaitForWorkersReady}), each from its replica spec's template
 * as the MPIJob holds it when the pod is made (so what Kueue wrote there at admission reaches the pods); a pod
 * that goes is made again; {@code runPolicy.suspend} deletes them all. The job succeeds when its launcher
 * does, and its workers are then deleted. Restart and failure policies are not simulated.
 */
final class SimulatedMpiJobs {
    static final String API = "/apis/kubeflow.org/v2beta1";
    static final String COLLECTION = API + "/mpijobs";
    static final String API_VERSION = "kubeflow.org/v2beta1";
    static final String JOB_NAME_LABEL = "training.kubeflow.org/job-name";
    static final String ROLE_LABEL = "training.kubeflow.org/job-role";
    static final String INDEX_LABEL = "training.kubeflow.org/replica-index";

    private final ClusterStore store;
    private final SimulatedPods pods;

    SimulatedMpiJobs(ClusterStore store, SimulatedPods pods) {
        this.store = store;
        this.pods = pods;
    }

    void reconcile(Instant now) {
        List<Map<String, Object>> jobs = store.list(COLLECTION);
        if (jobs.isEmpty()) {
            return;
        }
        List<Map<String, Object>> all = store.list("/api/v1/pods");
        for (Map<String, Object> job : jobs) {
            sync(job, all, now);
        }
    }

    private void sync(Map<String, Object> job, List<Map<String, Object>> all, Instant now) {
        String stamp = now.toString();
        String uid = SimulatedKueue.uid(job);
        String name = Obj.name(job);
        String namespace = Obj.namespace(job);
        Map<String, Map<String, Object>> mine = new LinkedHashMap<>();
        for (Map<String, Object> p : all) {
            if (uid.equals(SimulatedPods.ownerUid(p))) {
                mine.put(Obj.name(p), p);
            }
        }
        boolean suspended = Boolean.TRUE.equals(Obj.at(job, "spec", "runPolicy", "suspend"));
        Map<String, Object> launcher = mine.get(name + "-launcher");
        boolean succeeded = Obj.isTrue(job, "Succeeded") || launcher != null && "Succeeded".equals(Obj.str(launcher, "status", "phase"));
        long workers = Obj.num(job, 0, "spec", "mpiReplicaSpecs", "Worker", "replicas");
        if (suspended || succeeded) {
            for (Map<String, Object> p : mine.values()) {
                boolean done = SimulatedDeployments.terminal(p);
                if (!done && Obj.at(p, "metadata", "deletionTimestamp") == null) {
                    pods.terminate(p, SimulatedPods.graceOf(p), now);
                }
            }
        } else if (!pods.backingOff(uid, now) && pods.inAdmission(uid) == 0) {
            configMap(job, workers);
            boolean workersRunning = true;
            for (int i = 0; i < workers; i++) {
                Map<String, Object> worker = mine.get(name + "-worker-" + i);
                if (worker == null) {
                    pods.createPod(pod(job, "Worker", name + "-worker-" + i, i));
                    workersRunning = false;
                } else {
                    workersRunning &= "Running".equals(Obj.str(worker, "status", "phase"));
                }
            }
            boolean waits = "WaitForWorkersReady".equals(Obj.str(job, "spec", "launcherCreationPolicy")) && !workersRunning;
            if (launcher == null && !waits) {
                Map<String, Object> pod = pod(job, "Launcher", name + "-launcher", 0);
                Object runsFor = Obj.annotations(job).get(SimulatedPods.RUNS_FOR);
                if (runsFor != null) {
                    Obj.child(pod, "metadata", "annotations").put(SimulatedPods.RUNS_FOR, runsFor);
                }
                pods.createPod(pod);
            }
        }
        long activeWorkers = mine.values().stream().filter(p -> Obj.name(p).startsWith(name + "-worker-"))
                .filter(p -> !SimulatedDeployments.terminal(p) && Obj.at(p, "metadata", "deletionTimestamp") == null).count();
        boolean launcherActive = launcher != null && !SimulatedDeployments.terminal(launcher)
                && Obj.at(launcher, "metadata", "deletionTimestamp") == null;
        Map<String, Object> changed = Obj.copy(job);
        Map<String, Object> status = Obj.child(changed, "status");
        Map<String, Object> replicaStatuses = new LinkedHashMap<>();
        replicaStatuses.put("Launcher", Map.of("active", launcherActive ? 1 : 0, "succeeded", succeeded ? 1 : 0));
        replicaStatuses.put("Worker", Map.of("active", activeWorkers));
        status.put("replicaStatuses", replicaStatuses);
        Obj.setCondition(changed, "Created", "True", "MPIJobCreated", "MPIJob " + namespace + "/" + name + " is created.", stamp);
        if (suspended) {
            Obj.setCondition(changed, "Suspended", "True", "MPIJobSuspended", "MPIJob suspended", stamp);
            Obj.setCondition(changed, "Running", "False", "MPIJobSuspended", "MPIJob suspended", stamp);
        } else if (Obj.condition(changed, "Suspended") != null) {
            Obj.setCondition(changed, "Suspended", "False", "MPIJobResumed", "MPIJob resumed", stamp);
        }
        if (succeeded) {
            Obj.setCondition(changed, "Running", "False", "MPIJobSucceeded", "MPIJob " + namespace + "/" + name + " successfully completed.", stamp);
            Obj.setCondition(changed, "Succeeded", "True", "MPIJobSucceeded", "MPIJob " + namespace + "/" + name + " successfully completed.", stamp);
            status.putIfAbsent("completionTime", stamp);
        } else if (!suspended && launcher != null && "Running".equals(Obj.str(launcher, "status", "phase"))) {
            Obj.setCondition(changed, "Running", "True", "MPIJobRunning", "MPIJob " + namespace + "/" + name + " is running.", stamp);
            status.putIfAbsent("startTime", stamp);
        }
        if (!changed.equals(job)) {
            store.replace(API + "/namespaces/" + namespace + "/mpijobs/" + name, changed);
        }
    }

    /** A launcher or worker pod from its replica spec's template, as the MPIJob holds it now. */
    private static Map<String, Object> pod(Map<String, Object> job, String role, String name, int index) {
        Map<String, Object> pod = SimulatedDeployments.pod(Obj.map(Obj.at(job, "spec", "mpiReplicaSpecs", role, "template")), job, name,
                "MPIJob", API_VERSION, "Never");
        Map<String, Object> labels = Obj.child(pod, "metadata", "labels");
        labels.put(JOB_NAME_LABEL, Obj.name(job));
        labels.put(ROLE_LABEL, role.toLowerCase(java.util.Locale.ROOT));
        labels.put(INDEX_LABEL, Integer.toString(index));
        Map<String, Object> spec = Obj.child(pod, "spec");
        spec.put("hostname", name);
        spec.put("subdomain", Obj.name(job));
        return pod;
    }

    /** The launcher's hostfile: one line per worker with its slots. */
    private void configMap(Map<String, Object> job, long workers) {
        String name = Obj.name(job) + "-config";
        String path = "/api/v1/namespaces/" + Obj.namespace(job) + "/configmaps/" + name;
        if (store.get(path) != null) {
            return;
        }
        long slots = Obj.num(job, 1, "spec", "slotsPerWorker");
        StringBuilder hostfile = new StringBuilder();
        for (int i = 0; i < workers; i++) {
            hostfile.append(Obj.name(job)).append("-worker-").append(i).append('.').append(Obj.name(job)).append('.')
                    .append(Obj.namespace(job)).append(".svc slots=").append(slots).append('\n');
        }
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        metadata.put("namespace", Obj.namespace(job));
        metadata.put("ownerReferences", List.of(SimulatedKueue.owner(API_VERSION, "MPIJob", job)));
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("apiVersion", "v1");
        cm.put("kind", "ConfigMap");
        cm.put("metadata", metadata);
        cm.put("data", Map.of("hostfile", hostfile.toString()));
        store.create("/api/v1/namespaces/" + Obj.namespace(job) + "/configmaps", cm);
    }
}
