package com.bettercompute.adapters.k8s.simulator;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What Kueue (with its provisioning admission check) would do in one simulated cluster where it runs, one
 * round at a time, for the integrations its configuration names ({@link KueueFrameworks}): a Job, JobSet or
 * MPIJob gets a suspended start and a Workload {@code <kind>-<name>-<hash>} with one pod set per replicated
 * job or MPI replica type; a pod its webhook gated is a Workload of its own ({@code pod-<name>-<hash>});
 * Workloads reserve GPU quota in their ClusterQueue by priority, then age; a Workload holding quota files one
 * ProvisioningRequest {@code <workload>-<check>-<attempt>} with a PodTemplate per pod set asking GPUs (the
 * check's managed resource) and follows the request's conditions; an admitted Workload's job is started with
 * the flavor's and the request's node selector (a pod's gate lifted), an evicted one's stopped (a pod
 * deleted). Its webhook's mutations ({@link #mutate}) are answered here too. Time comes from the given clock;
 * all state lives in the objects, so a restarted simulator carries on. See docs/operators/gke-simulator.md for where it
 * differs from Kueue.
 */
final class SimulatedKueue {
    static final String WORKLOADS = KueueCrds.API + "/workloads";
    static final String PROVISIONING_API = "/apis/autoscaling.x-k8s.io/v1";
    static final String PROVISIONING_CRD = "provisioningrequests.autoscaling.x-k8s.io";
    static final String QUEUE_LABEL = "kueue.x-k8s.io/queue-name";
    static final String PRIORITY_LABEL = "kueue.x-k8s.io/priority-class";
    static final String MANAGED_LABEL = KueueFrameworks.MANAGED_LABEL;
    static final String JOB_UID_LABEL = "kueue.x-k8s.io/job-uid";
    static final String PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request";
    static final String GPU = "nvidia.com/gpu";
    static final String CREATED_AT = "sim.better-compute.dev/created-at";
    /** Namespaces Kueue leaves alone whatever its configuration (its own and the system's). */
    static final List<String> UNMANAGED_NAMESPACES = List.of("kube-system", "kueue-system");
    private static final String MAIN = "main";
    private static final Duration DEFAULT_BACKOFF_BASE = Duration.ofSeconds(60);
    private static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(1800);
    private static final long DEFAULT_BACKOFF_LIMIT = 3;

    private final ClusterStore store;
    private final SimulatedPods pods;
    /** Overrides every ProvisioningRequestConfig's back-off base (tests, fast demos); null: as configured. */
    private final Duration backoffBase;

    SimulatedKueue(ClusterStore store, SimulatedPods pods, Duration backoffBase) {
        this.store = store;
        this.pods = pods;
        this.backoffBase = backoffBase;
    }

    /** A job of one integration, as Kueue holds it. */
    private record Owned(KueueFrameworks.Framework framework, Map<String, Object> object) {
        String uid() {
            return SimulatedKueue.uid(object);
        }
    }

    /** The integrations that run: named in the configuration, with their kind served. */
    private static List<KueueFrameworks.Framework> enabled(InstalledComponents.Running running) {
        List<KueueFrameworks.Framework> out = new ArrayList<>();
        for (KueueFrameworks.Framework f : KueueFrameworks.all()) {
            boolean served = switch (f.kind()) {
                case "JobSet" -> running.jobSet();
                case "MPIJob" -> running.mpiOperator();
                default -> true;
            };
            if (served && running.kueueConfig().integrates(f.name())) {
                out.add(f);
            }
        }
        return out;
    }

    void reconcile(Instant now, InstalledComponents.Running running) {
        if (!running.kueue()) {
            return;
        }
        String stamp = now.toString();
        List<KueueFrameworks.Framework> frameworks = enabled(running);
        List<String> kinds = frameworks.stream().map(KueueFrameworks.Framework::kind).toList();
        List<Owned> owned = new ArrayList<>();
        for (KueueFrameworks.Framework f : frameworks) {
            for (Map<String, Object> o : store.list(f.collection())) {
                if (!UNMANAGED_NAMESPACES.contains(Obj.namespace(o)) && f.manages(o, kinds)) {
                    owned.add(new Owned(f, o));
                }
            }
        }
        Map<String, Owned> byUid = new HashMap<>();
        owned.forEach(o -> byUid.put(o.uid(), o));
        Map<String, Map<String, Object>> workloadsByOwner = new HashMap<>();
        for (Map<String, Object> w : store.list(WORKLOADS)) {
            String owner = ownerUid(w);
            if (!byUid.containsKey(owner)) {
                deleteWorkload(w);
            } else {
                workloadsByOwner.put(owner, w);
            }
        }
        for (Owned o : owned) {
            Map<String, Object> workload = workloadsByOwner.get(o.uid());
            KueueFrameworks.Framework f = o.framework();
            if (workload == null) {
                String queue = queueOf(o, running.kueueConfig());
                if (queue == null || f.runningUnqueued(o.object()) || f.finished(o.object())) {
                    continue;
                }
                workload = createWorkload(o, queue, stamp);
                if (workload != null) {
                    workloadsByOwner.put(o.uid(), workload);
                }
                continue;
            }
            boolean suspended = f.suspended(o.object());
            if (suspended && !Obj.isTrue(workload, "Admitted") && !matches(o, workload)) {
                // As Kueue: a job changed while it waits no longer matches its Workload, which is made again.
                deleteWorkload(workload);
                workloadsByOwner.remove(o.uid());
                continue;
            }
            if (!suspended && !Obj.isTrue(workload, "Admitted") && !f.finished(o.object())) {
                stop(o, workload, now);
            }
        }
        reserveQuota(new ArrayList<>(workloadsByOwner.values()), now, stamp);
        for (Owned o : owned) {
            Map<String, Object> workload = workloadsByOwner.get(o.uid());
            if (workload != null) {
                followChecks(o, workload, now, stamp);
            }
        }
    }

    // ---------------------------------------------------------------- the webhook

    /**
     * What Kueue's mutating webhook makes of an object created while Kueue runs (null: it adds nothing): a job of
     * an integration that names no queue takes the namespace's LocalQueue {@code default} when there is one
     * (LocalQueueDefaulting); a queued Job or JobSet is created suspended (an MPIJob by its
     * {@code runPolicy.suspend}); a queued pod that no managed job owns is marked managed and gated with
     * {@value KueueFrameworks#ADMISSION_GATE}; a queued Deployment or StatefulSet passes its queue name to its
     * pods' template.
     */
    Map<String, Object> mutate(String operation, String kind, Map<String, Object> object, InstalledComponents.Running running) {
        if (!running.kueue() || object == null || !"CREATE".equals(operation) || UNMANAGED_NAMESPACES.contains(Obj.namespace(object))) {
            return null;
        }
        InstalledComponents.KueueConfig config = running.kueueConfig();
        List<String> kinds = enabled(running).stream().map(KueueFrameworks.Framework::kind).toList();
        String framework = switch (kind) {
            case "Job" -> "batch/job";
            case "JobSet" -> "jobset.x-k8s.io/jobset";
            case "MPIJob" -> "kubeflow.org/mpijob";
            case "Pod" -> "pod";
            case "Deployment" -> "deployment";
            case "StatefulSet" -> "statefulset";
            default -> null;
        };
        if (framework == null || !config.integrates(framework)) {
            return null;
        }
        Map<String, Object> owner = SimulatedPods.controllerOf(object);
        if (owner != null && kinds.contains(String.valueOf(owner.get("kind")))) {
            // a managed job's own Jobs and pods are queued through it
            return null;
        }
        Map<String, Object> changed = Obj.copy(object);
        Map<String, Object> labels = Obj.child(changed, "metadata", "labels");
        boolean defaults = config.localQueueDefaulting() && (!"Pod".equals(kind) || owner == null);
        if (!labels.containsKey(QUEUE_LABEL) && defaults && store.get(KueueCrds.API + "/namespaces/" + Obj.namespace(object)
                + "/localqueues/default") != null) {
            labels.put(QUEUE_LABEL, "default");
        }
        if (!labels.containsKey(QUEUE_LABEL) && !config.manageJobsWithoutQueueName()) {
            return null;
        }
        switch (kind) {
            case "Job", "JobSet" -> Obj.child(changed, "spec").put("suspend", true);
            case "MPIJob" -> Obj.child(changed, "spec", "runPolicy").put("suspend", true);
            case "Pod" -> {
                labels.put(MANAGED_LABEL, "true");
                List<Object> gates = Obj.childList(Obj.child(changed, "spec"), "schedulingGates");
                if (gates.stream().noneMatch(g -> KueueFrameworks.ADMISSION_GATE.equals(Obj.map(g).get("name")))) {
                    gates.add(new LinkedHashMap<>(Map.of("name", KueueFrameworks.ADMISSION_GATE)));
                }
            }
            default -> {
                Object queue = labels.get(QUEUE_LABEL);
                if (queue != null) {
                    Obj.child(changed, "spec", "template", "metadata", "labels").put(QUEUE_LABEL, queue);
                }
            }
        }
        return changed;
    }

    // ---------------------------------------------------------------- workloads

    /** The LocalQueue a job is queued in: its label's, else (LocalQueueDefaulting) the namespace's {@code default}. */
    private String queueOf(Owned o, InstalledComponents.KueueConfig config) {
        Object label = Obj.labels(o.object()).get(QUEUE_LABEL);
        if (label != null) {
            return label.toString();
        }
        if ("Pod".equals(o.framework().kind()) || !config.localQueueDefaulting()) {
            return null;
        }
        String namespace = Obj.namespace(o.object());
        return store.get(KueueCrds.API + "/namespaces/" + namespace + "/localqueues/default") != null ? "default" : null;
    }

    static String workloadName(String jobName, String jobUid) {
        return workloadName("job", "Job", jobName, jobUid);
    }

    static String workloadName(String prefix, String kind, String name, String uid) {
        String start = prefix + "-" + name;
        if (start.length() > 63 - 6) {
            start = start.substring(0, 63 - 6);
        }
        return start + "-" + hash(name + "/" + uid + "/" + kind).substring(0, 5);
    }

    private Map<String, Object> createWorkload(Owned o, String queue, String stamp) {
        Map<String, Object> job = o.object();
        KueueFrameworks.Framework f = o.framework();
        String namespace = Obj.namespace(job);
        List<Object> podSets = new ArrayList<>();
        for (KueueFrameworks.PodSet set : f.podSets(job)) {
            Map<String, Object> podSet = new LinkedHashMap<>();
            podSet.put("name", set.name());
            podSet.put("count", set.count());
            podSet.put("template", set.template());
            podSets.add(podSet);
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("queueName", queue);
        spec.put("podSets", podSets);
        spec.put("active", true);
        Object priorityClass = Obj.labels(job).get(PRIORITY_LABEL);
        if (priorityClass != null) {
            Map<String, Object> wpc = store.get(KueueCrds.API + "/workloadpriorityclasses/" + priorityClass);
            spec.put("priorityClassName", priorityClass.toString());
            spec.put("priorityClassSource", "kueue.x-k8s.io/workloadpriorityclass");
            spec.put("priority", wpc == null ? 0 : Obj.num(wpc, 0, "value"));
        } else {
            spec.put("priority", 0);
        }
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", workloadName(f.prefix(), f.kind(), Obj.name(job), uid(job)));
        metadata.put("namespace", namespace);
        metadata.put("labels", Map.of(JOB_UID_LABEL, uid(job)));
        metadata.put("annotations", Map.of(CREATED_AT, stamp));
        metadata.put("ownerReferences", List.of(owner(f.apiVersion(), f.kind(), job)));
        Map<String, Object> workload = new LinkedHashMap<>();
        workload.put("apiVersion", KueueCrds.GROUP + "/" + KueueCrds.VERSION);
        workload.put("kind", "Workload");
        workload.put("metadata", metadata);
        workload.put("spec", spec);
        Map<String, Object> created = store.create(KueueCrds.API + "/namespaces/" + namespace + "/workloads", workload);
        if (created == null) {
            return null;
        }
        if (!f.suspended(job)) {
            // As Kueue's webhook would have: a job in a queue starts suspended (a pod is gated by the webhook alone).
            Map<String, Object> suspended = f.stopped(job, List.of());
            if (suspended != null) {
                store.replace(f.path(job), suspended);
            }
        }
        return created;
    }

    private static boolean matches(Owned o, Map<String, Object> workload) {
        if ("Pod".equals(o.framework().kind())) {
            return true;
        }
        List<Object> sets = Obj.list(Obj.at(workload, "spec", "podSets"));
        List<KueueFrameworks.PodSet> now = o.framework().podSets(o.object());
        if (sets.size() != now.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i++) {
            Map<String, Object> set = Obj.map(sets.get(i));
            if (!Obj.map(set.get("template")).equals(now.get(i).template()) || Obj.num(set, 1, "count") != now.get(i).count()) {
                return false;
            }
        }
        return true;
    }

    private void deleteWorkload(Map<String, Object> workload) {
        String namespace = Obj.namespace(workload);
        for (Map<String, Object> request : store.list(PROVISIONING_API + "/namespaces/" + namespace + "/provisioningrequests")) {
            if (uid(workload).equals(ownerUid(request))) {
                deleteRequest(request);
            }
        }
        store.delete(path(workload, KueueCrds.API, "workloads"));
    }

    private void deleteRequest(Map<String, Object> request) {
        String namespace = Obj.namespace(request);
        for (Object podSet : Obj.list(Obj.at(request, "spec", "podSets"))) {
            String template = Obj.str(Obj.map(podSet), "podTemplateRef", "name");
            if (template != null) {
                store.delete("/api/v1/namespaces/" + namespace + "/podtemplates/" + template);
            }
        }
        store.delete(PROVISIONING_API + "/namespaces/" + namespace + "/provisioningrequests/" + Obj.name(request));
    }

    // ---------------------------------------------------------------- quota

    /** Quota by ClusterQueue: holders keep theirs (no preemption); waiting Workloads by priority, then age. */
    private void reserveQuota(List<Map<String, Object>> workloads, Instant now, String stamp) {
        Map<String, Map<String, Long>> used = new HashMap<>();
        List<Map<String, Object>> waiting = new ArrayList<>();
        for (Map<String, Object> w : workloads) {
            Map<String, Object> admission = Obj.map(Obj.at(w, "status", "admission"));
            if (Obj.isTrue(w, "Finished") || Boolean.FALSE.equals(Obj.at(w, "spec", "active"))) {
                continue;
            }
            if (!admission.isEmpty()) {
                String flavor = gpuFlavor(w);
                if (flavor != null) {
                    used.computeIfAbsent((String) admission.get("clusterQueue"), k -> new HashMap<>()).merge(flavor, gpus(w), Long::sum);
                }
            } else {
                Instant requeueAt = Obj.instant(Obj.str(w, "status", "requeueState", "requeueAt"));
                if (requeueAt == null || !now.isBefore(requeueAt)) {
                    waiting.add(w);
                }
            }
        }
        waiting.sort(Comparator.<Map<String, Object>>comparingLong(w -> -Obj.num(w, 0, "spec", "priority"))
                .thenComparing(w -> String.valueOf(Obj.annotations(w).get(CREATED_AT)))
                .thenComparing(Obj::name));
        Set<String> blocked = new HashSet<>();
        for (Map<String, Object> w : waiting) {
            Map<String, Object> queue = store.get(KueueCrds.API + "/namespaces/" + Obj.namespace(w) + "/localqueues/" + Obj.str(w, "spec", "queueName"));
            if (queue == null) {
                pending(w, "Inadmissible", "LocalQueue " + Obj.str(w, "spec", "queueName") + " doesn't exist", stamp);
                continue;
            }
            String cqName = Obj.str(queue, "spec", "clusterQueue");
            Map<String, Object> cq = store.get(KueueCrds.API + "/clusterqueues/" + cqName);
            if (cq == null) {
                pending(w, "Inadmissible", "ClusterQueue " + cqName + " doesn't exist", stamp);
                continue;
            }
            List<String> missing = checksOf(cq, null).stream()
                    .filter(c -> store.get(KueueCrds.API + "/admissionchecks/" + c) == null).toList();
            if (!missing.isEmpty()) {
                pending(w, "Inadmissible", "ClusterQueue " + cqName + " is inactive: admission check " + missing.get(0) + " not found", stamp);
                continue;
            }
            if (blocked.contains(cqName)) {
                pending(w, "Pending", "Workloads ahead of this one in StrictFIFO ClusterQueue " + cqName + " are waiting", stamp);
                continue;
            }
            long gpus = gpus(w);
            String flavor = null;
            // Kueue's flavor assigner keeps every flavor's reason and reports them sorted, joined by ", ".
            List<String> refusals = new ArrayList<>();
            if (gpus > 0) {
                Map<String, Long> usage = used.computeIfAbsent(cqName, k -> new HashMap<>());
                Map<String, Long> flavors = gpuFlavors(cq);
                Set<String> keys = labelKeys(flavors.keySet());
                for (Map.Entry<String, Long> f : flavors.entrySet()) {
                    if (!fitsFlavor(w, f.getKey(), keys)) {
                        refusals.add("flavor " + f.getKey() + " doesn't match node affinity");
                        continue;
                    }
                    long free = f.getValue() - usage.getOrDefault(f.getKey(), 0L);
                    if (gpus <= free) {
                        flavor = f.getKey();
                        break;
                    }
                    refusals.add(gpus > f.getValue()
                            ? "insufficient quota for " + GPU + " in flavor " + f.getKey() + ", request > maximum capacity (" + gpus + " > " + f.getValue() + ")"
                            : "insufficient unused quota for " + GPU + " in flavor " + f.getKey() + ", " + (gpus - free) + " more needed");
                }
                if (flavor == null) {
                    refusals.sort(Comparator.naturalOrder());
                    pending(w, "Pending", "couldn't assign flavors to pod set " + gpuPodSetNames(w).get(0) + ": "
                            + (refusals.isEmpty() ? "resource " + GPU + " unavailable in ClusterQueue" : String.join(", ", refusals)), stamp);
                    if ("StrictFIFO".equals(Obj.str(cq, "spec", "queueingStrategy"))) {
                        blocked.add(cqName);
                    }
                    continue;
                }
                usage.merge(flavor, gpus, Long::sum);
            }
            admit(w, cqName, cq, flavor, gpus, stamp);
        }
    }

    /** The flavors offering GPUs in the ClusterQueue, in order, with their nominal quota. */
    private static Map<String, Long> gpuFlavors(Map<String, Object> cq) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Object group : Obj.list(Obj.at(cq, "spec", "resourceGroups"))) {
            for (Object f : Obj.list(Obj.map(group).get("flavors"))) {
                for (Object r : Obj.list(Obj.map(f).get("resources"))) {
                    if (GPU.equals(Obj.map(r).get("name"))) {
                        out.put(Obj.str(Obj.map(f), "name"), quantity(Obj.map(r).get("nominalQuota")));
                    }
                }
            }
        }
        return out;
    }

    /** The label keys the flavors' node labels use: only those of a pod's node selector decide a flavor's fit. */
    private Set<String> labelKeys(Set<String> flavors) {
        Set<String> keys = new HashSet<>();
        for (String f : flavors) {
            keys.addAll(Obj.map(Obj.at(store.get(KueueCrds.API + "/resourceflavors/" + f), "spec", "nodeLabels")).keySet());
        }
        return keys;
    }

    /**
     * As Kueue matches a flavor: the pod template's node selector, cut to the keys some flavor of the queue uses,
     * must select a node carrying just that flavor's labels, so a selected key the flavor lacks does not fit.
     */
    private boolean fitsFlavor(Map<String, Object> w, String flavor, Set<String> keys) {
        Map<String, Object> rf = store.get(KueueCrds.API + "/resourceflavors/" + flavor);
        if (rf == null) {
            return false;
        }
        Map<String, Object> labels = Obj.map(Obj.at(rf, "spec", "nodeLabels"));
        Map<String, Object> selector = Obj.map(Obj.at(podSet(w, gpuPodSetNames(w).get(0)), "template", "spec", "nodeSelector"));
        for (Map.Entry<String, Object> wanted : selector.entrySet()) {
            if (keys.contains(wanted.getKey()) && !wanted.getValue().equals(labels.get(wanted.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The admission checks of a ClusterQueue that apply to a flavor (null: all of them). */
    private static List<String> checksOf(Map<String, Object> cq, String flavor) {
        List<String> out = new ArrayList<>();
        Obj.list(Obj.at(cq, "spec", "admissionChecks")).forEach(c -> out.add(c.toString()));
        for (Object c : Obj.list(Obj.at(cq, "spec", "admissionChecksStrategy", "admissionChecks"))) {
            List<Object> on = Obj.list(Obj.map(c).get("onFlavors"));
            if (flavor == null || on.isEmpty() || on.contains(flavor)) {
                out.add(Obj.str(Obj.map(c), "name"));
            }
        }
        return out;
    }

    private void pending(Map<String, Object> w, String reason, String message, String stamp) {
        Map<String, Object> changed = Obj.copy(w);
        if (Obj.setCondition(changed, "QuotaReserved", "False", reason, message, stamp)) {
            store.replace(path(w, KueueCrds.API, "workloads"), changed);
        }
    }

    private void admit(Map<String, Object> w, String cqName, Map<String, Object> cq, String flavor, long gpus, String stamp) {
        Map<String, Object> changed = Obj.copy(w);
        Map<String, Object> status = Obj.child(changed, "status");
        List<Object> assignments = new ArrayList<>();
        for (Object s : Obj.list(Obj.at(w, "spec", "podSets"))) {
            Map<String, Object> set = Obj.map(s);
            Map<String, Object> assignment = new LinkedHashMap<>();
            assignment.put("name", set.get("name"));
            long count = Obj.num(set, 1, "count");
            assignment.put("count", count);
            long setGpus = count * SimulatedPods.gpusPerPod(Obj.map(set.get("template")));
            // a pod set asking no GPUs takes no GPU flavor: it never reaches the market
            if (flavor != null && setGpus > 0) {
                assignment.put("flavors", Map.of(GPU, flavor));
                assignment.put("resourceUsage", Map.of(GPU, Long.toString(setGpus)));
            }
            assignments.add(assignment);
        }
        status.put("admission", Map.of("clusterQueue", cqName, "podSetAssignments", assignments));
        status.remove("requeueState");
        Obj.setCondition(changed, "QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue " + cqName, stamp);
        // GPU-less workloads pass without the provisioning check: they never reach the market.
        List<String> checks = gpus > 0 ? checksOf(cq, flavor) : List.of();
        Map<String, Map<String, Object>> previous = new HashMap<>();
        Obj.list(status.get("admissionChecks")).forEach(c -> previous.put(Obj.str(Obj.map(c), "name"), Obj.map(c)));
        List<Object> states = new ArrayList<>();
        for (String check : checks) {
            Map<String, Object> state = new LinkedHashMap<>();
            state.put("name", check);
            state.put("state", "Pending");
            state.put("message", "");
            state.put("lastTransitionTime", stamp);
            state.put("retryCount", previous.containsKey(check) ? Obj.num(previous.get(check), 0, "retryCount") : 0);
            states.add(state);
        }
        status.put("admissionChecks", states);
        if (checks.isEmpty()) {
            Obj.setCondition(changed, "Admitted", "True", "Admitted", "The workload is admitted", stamp);
        }
        store.replace(path(w, KueueCrds.API, "workloads"), changed);
    }

    // ---------------------------------------------------------------- admission checks

    private void followChecks(Owned o, Map<String, Object> stale, Instant now, String stamp) {
        Map<String, Object> job = o.object();
        Map<String, Object> w = store.get(path(stale, KueueCrds.API, "workloads"));
        if (w == null) {
            return;
        }
        if (o.framework().finished(job)) {
            if (!Obj.isTrue(w, "Finished")) {
                Map<String, Object> finished = Obj.copy(w);
                boolean failed = Obj.isTrue(job, "Failed") || "Failed".equals(Obj.str(job, "status", "phase"));
                Obj.setCondition(finished, "Finished", "True", failed ? "Failed" : "Succeeded",
                        failed ? "Job failed" : "Job finished successfully", stamp);
                store.replace(path(w, KueueCrds.API, "workloads"), finished);
            }
            return;
        }
        Map<String, Object> admission = Obj.map(Obj.at(w, "status", "admission"));
        if (admission.isEmpty() || Boolean.FALSE.equals(Obj.at(w, "spec", "active"))) {
            return;
        }
        Map<String, Object> changed = Obj.copy(w);
        List<Object> states = Obj.list(Obj.at(changed, "status", "admissionChecks"));
        boolean provisioningServed = store.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + PROVISIONING_CRD) != null;
        String evictedBy = null;
        String rejectedBy = null;
        Map<String, Object> nodeSelector = new LinkedHashMap<>();
        for (Object s : states) {
            Map<String, Object> state = Obj.map(s);
            String check = (String) state.get("name");
            Map<String, Object> ac = store.get(KueueCrds.API + "/admissionchecks/" + check);
            if (ac == null || !PROVISIONING_CONTROLLER.equals(Obj.str(ac, "spec", "controllerName")) || !provisioningServed) {
                continue;
            }
            Map<String, Object> config = store.get(KueueCrds.API + "/provisioningrequestconfigs/" + Obj.str(ac, "spec", "parameters", "name"));
            if (config == null) {
                state.put("message", "ProvisioningRequestConfig " + Obj.str(ac, "spec", "parameters", "name") + " not found");
                continue;
            }
            long attempt = Obj.num(state, 0, "retryCount") + 1;
            String requestName = requestName(Obj.name(w), check, attempt);
            String requests = PROVISIONING_API + "/namespaces/" + Obj.namespace(w) + "/provisioningrequests";
            Map<String, Object> request = store.get(requests + "/" + requestName);
            if (request == null) {
                // A Ready check stays Ready when its request goes (the nodes are there); a Pending one files it.
                if (!"Ready".equals(state.get("state"))) {
                    fileRequest(w, job, check, attempt, requestName, config);
                }
                continue;
            }
            Map<String, Object> failed = Obj.condition(request, "Failed");
            boolean revoked = Obj.isTrue(request, "CapacityRevoked");
            boolean expired = Obj.isTrue(request, "BookingExpired") && !Obj.isTrue(w, "Admitted");
            if (Obj.isTrue(request, "Failed") || expired || revoked) {
                long limit = Obj.num(config, DEFAULT_BACKOFF_LIMIT, "spec", "retryStrategy", "backoffLimitCount");
                String message = failed != null && "True".equals(failed.get("status")) ? String.valueOf(failed.get("message"))
                        : revoked ? "capacity revoked" : "booking expired";
                if (revoked || attempt > limit) {
                    state.put("state", "Rejected");
                    rejectedBy = check + ": " + message;
                } else {
                    state.put("state", "Retry");
                    state.put("retryCount", attempt);
                    evictedBy = check;
                    Duration base = backoffBase != null ? backoffBase
                            : Duration.ofSeconds(Obj.num(config, DEFAULT_BACKOFF_BASE.toSeconds(), "spec", "retryStrategy", "backoffBaseSeconds"));
                    Duration max = Duration.ofSeconds(Obj.num(config, DEFAULT_BACKOFF_MAX.toSeconds(), "spec", "retryStrategy", "backoffMaxSeconds"));
                    Duration wait = base.multipliedBy(1L << Math.min(30, attempt - 1));
                    Map<String, Object> requeue = Obj.child(changed, "status", "requeueState");
                    requeue.put("count", attempt);
                    requeue.put("requeueAt", now.plus(wait.compareTo(max) > 0 ? max : wait).toString());
                }
                state.put("message", message);
                state.put("lastTransitionTime", stamp);
                continue;
            }
            String message = Obj.isTrue(request, "Accepted") && Obj.condition(request, "Provisioned") != null
                    ? String.valueOf(Obj.condition(request, "Provisioned").get("message")) : "";
            if (Obj.isTrue(request, "Provisioned")) {
                if (!"Ready".equals(state.get("state"))) {
                    state.put("lastTransitionTime", stamp);
                }
                state.put("state", "Ready");
                nodeSelector.putAll(podSetUpdates(config, request));
            }
            state.put("message", message);
        }
        if (rejectedBy != null) {
            Obj.child(changed, "spec").put("active", false);
            Obj.child(changed, "status").remove("admission");
            Obj.setCondition(changed, "QuotaReserved", "False", "Pending", "The workload is deactivated", stamp);
            Obj.setCondition(changed, "Admitted", "False", "NoReservation", "The workload has no reservation", stamp);
            Obj.setCondition(changed, "Evicted", "True", "DeactivatedDueToAdmissionCheck",
                    "The workload is deactivated due to the rejected admission check " + rejectedBy, stamp);
        } else if (evictedBy != null) {
            Obj.child(changed, "status").remove("admission");
            Obj.setCondition(changed, "QuotaReserved", "False", "Pending", "The workload was evicted and waits to be requeued", stamp);
            Obj.setCondition(changed, "Admitted", "False", "NoReservation", "The workload has no reservation", stamp);
            Obj.setCondition(changed, "Evicted", "True", "AdmissionCheck", "At least one admission check is false", stamp);
            Obj.setCondition(changed, "Requeued", "False", "AdmissionCheck", "At least one admission check is false", stamp);
        } else if (!states.isEmpty() && states.stream().allMatch(s -> "Ready".equals(Obj.map(s).get("state")))) {
            Obj.setCondition(changed, "Admitted", "True", "Admitted", "The workload is admitted", stamp);
            Obj.setCondition(changed, "Requeued", "True", "Admitted", "The workload is admitted", stamp);
        }
        if (!changed.equals(w)) {
            w = store.replace(path(w, KueueCrds.API, "workloads"), changed);
            if (w == null) {
                return;
            }
        }
        Map<String, Object> current = store.get(o.framework().path(job));
        if (current == null) {
            return;
        }
        Owned latest = new Owned(o.framework(), current);
        if (Obj.isTrue(w, "Admitted") && rejectedBy == null && evictedBy == null) {
            if (o.framework().suspended(current)) {
                start(latest, w, nodeSelector);
            }
        } else if (!o.framework().suspended(current)) {
            stop(latest, w, now);
        }
    }

    static String requestName(String workload, String check, long attempt) {
        String name = workload + "-" + check + "-" + attempt;
        if (name.length() > 253) {
            name = name.substring(0, 247) + "-" + hash(name).substring(0, 5);
        }
        return name;
    }

    private void fileRequest(Map<String, Object> w, Map<String, Object> job, String check, long attempt, String requestName,
                             Map<String, Object> config) {
        String namespace = Obj.namespace(w);
        if (attempt > 1) {
            Map<String, Object> previous = store.get(PROVISIONING_API + "/namespaces/" + namespace + "/provisioningrequests/"
                    + requestName(Obj.name(w), check, attempt - 1));
            if (previous != null) {
                deleteRequest(previous);
            }
        }
        Map<String, Object> labels = Map.of(MANAGED_LABEL, "true");
        // the request asks for the pod sets that ask the check's managed resource (GPUs): an MPI launcher is not in it
        Map<String, Map<String, Object>> templates = new LinkedHashMap<>();
        List<Object> requested = new ArrayList<>();
        for (String set : gpuPodSetNames(w)) {
            String templateName = "ppt-" + requestName + "-" + set;
            Map<String, Object> template = Obj.copy(Obj.map(podSet(w, set).get("template")));
            applyFlavor(template, w, set);
            templates.put(templateName, template);
            requested.add(Map.of("podTemplateRef", Map.of("name", templateName), "count", Obj.num(podSet(w, set), 1, "count")));
        }
        Map<String, Object> requestMetadata = new LinkedHashMap<>();
        requestMetadata.put("name", requestName);
        requestMetadata.put("namespace", namespace);
        requestMetadata.put("labels", labels);
        requestMetadata.put("ownerReferences", List.of(owner(KueueCrds.GROUP + "/" + KueueCrds.VERSION, "Workload", w)));
        Map<String, Object> parameters = new LinkedHashMap<>(Obj.map(Obj.at(config, "spec", "parameters")));
        Obj.annotations(job).forEach((k, v) -> {
            if (k.startsWith("provreq.kueue.x-k8s.io/")) {
                parameters.put(k.substring("provreq.kueue.x-k8s.io/".length()), v);
            }
        });
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("provisioningClassName", Obj.str(config, "spec", "provisioningClassName"));
        spec.put("podSets", requested);
        if (!parameters.isEmpty()) {
            spec.put("parameters", parameters);
        }
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("apiVersion", "autoscaling.x-k8s.io/v1");
        request.put("kind", "ProvisioningRequest");
        request.put("metadata", requestMetadata);
        request.put("spec", spec);
        Map<String, Object> created = store.create(PROVISIONING_API + "/namespaces/" + namespace + "/provisioningrequests", request);
        if (created == null) {
            return;
        }
        templates.forEach((templateName, template) -> {
            Map<String, Object> templateMetadata = new LinkedHashMap<>();
            templateMetadata.put("name", templateName);
            templateMetadata.put("namespace", namespace);
            templateMetadata.put("labels", labels);
            templateMetadata.put("ownerReferences", List.of(owner("autoscaling.x-k8s.io/v1", "ProvisioningRequest", created)));
            Map<String, Object> podTemplate = new LinkedHashMap<>();
            podTemplate.put("apiVersion", "v1");
            podTemplate.put("kind", "PodTemplate");
            podTemplate.put("metadata", templateMetadata);
            podTemplate.put("template", template);
            store.create("/api/v1/namespaces/" + namespace + "/podtemplates", podTemplate);
        });
    }

    /** What the config's {@code podSetUpdates.nodeSelector} takes from the request's {@code provisioningClassDetails}. */
    private static Map<String, Object> podSetUpdates(Map<String, Object> config, Map<String, Object> request) {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Object> details = Obj.map(Obj.at(request, "status", "provisioningClassDetails"));
        for (Object u : Obj.list(Obj.at(config, "spec", "podSetUpdates", "nodeSelector"))) {
            Map<String, Object> update = Obj.map(u);
            Object value = details.get(update.get("valueFromProvisioningClassDetail"));
            if (value != null && update.get("key") != null) {
                out.put((String) update.get("key"), value.toString());
            }
        }
        return out;
    }

    /**
     * The flavor assigned to the pod set: its node labels into the node selector and its tolerations into the
     * tolerations, as Kueue injects them.
     */
    private void applyFlavor(Map<String, Object> template, Map<String, Object> w, String podSet) {
        String flavor = null;
        for (Object a : Obj.list(Obj.at(w, "status", "admission", "podSetAssignments"))) {
            if (podSet.equals(Obj.map(a).get("name"))) {
                flavor = Obj.str(Obj.map(a), "flavors", GPU);
            }
        }
        Map<String, Object> rf = flavor == null ? null : store.get(KueueCrds.API + "/resourceflavors/" + flavor);
        if (rf == null) {
            return;
        }
        Map<String, Object> spec = Obj.child(template, "spec");
        Map<String, Object> labels = Obj.map(Obj.at(rf, "spec", "nodeLabels"));
        if (!labels.isEmpty()) {
            Obj.child(spec, "nodeSelector").putAll(labels);
        }
        List<Object> tolerations = Obj.childList(spec, "tolerations");
        for (Object t : Obj.list(Obj.at(rf, "spec", "tolerations"))) {
            if (!tolerations.contains(t)) {
                tolerations.add(Obj.copy(t));
            }
        }
    }

    // ---------------------------------------------------------------- jobs

    /**
     * Starts an admitted job: each pod set's template with its flavor; those the provisioning request asked for
     * also with the request's node selector and the annotations naming the request, as Kueue starts a job.
     */
    private void start(Owned o, Map<String, Object> w, Map<String, Object> nodeSelector) {
        List<String> requested = gpuPodSetNames(w);
        Map<String, Map<String, Object>> templates = new LinkedHashMap<>();
        for (Object s : Obj.list(Obj.at(w, "spec", "podSets"))) {
            String set = String.valueOf(Obj.map(s).get("name"));
            Map<String, Object> template = Obj.copy(Obj.map(Obj.map(s).get("template")));
            applyFlavor(template, w, set);
            if (requested.contains(set) && gpus(w) > 0) {
                if (!nodeSelector.isEmpty()) {
                    Obj.child(template, "spec", "nodeSelector").putAll(nodeSelector);
                }
                for (Object c : Obj.list(Obj.at(w, "status", "admissionChecks"))) {
                    String check = Obj.str(Obj.map(c), "name");
                    String request = requestName(Obj.name(w), check, Obj.num(Obj.map(c), 0, "retryCount") + 1);
                    Map<String, Object> annotations = Obj.child(template, "metadata", "annotations");
                    annotations.put("autoscaling.x-k8s.io/consume-provisioning-request", request);
                    Map<String, Object> ac = store.get(KueueCrds.API + "/admissionchecks/" + check);
                    Map<String, Object> config = ac == null ? null
                            : store.get(KueueCrds.API + "/provisioningrequestconfigs/" + Obj.str(ac, "spec", "parameters", "name"));
                    if (config != null) {
                        annotations.put("autoscaling.x-k8s.io/provisioning-class-name", Obj.str(config, "spec", "provisioningClassName"));
                    }
                }
            }
            templates.put(set, template);
        }
        store.replace(o.framework().path(o.object()), o.framework().started(o.object(), templates));
    }

    /** Suspends the job and gives it back its own pod templates, as Kueue does at eviction; a pod is deleted. */
    private void stop(Owned o, Map<String, Object> w, Instant now) {
        List<KueueFrameworks.PodSet> original = new ArrayList<>();
        for (Object s : Obj.list(Obj.at(w, "spec", "podSets"))) {
            Map<String, Object> set = Obj.map(s);
            original.add(new KueueFrameworks.PodSet(String.valueOf(set.get("name")), Obj.num(set, 1, "count"),
                    set.get("template") == null ? null : Obj.map(set.get("template"))));
        }
        Map<String, Object> stopped = o.framework().stopped(o.object(), original);
        if (stopped == null) {
            pods.terminate(o.object(), SimulatedPods.graceOf(o.object()), now);
        } else {
            store.replace(o.framework().path(o.object()), stopped);
        }
    }

    // ---------------------------------------------------------------- helpers

    private static Map<String, Object> podSet(Map<String, Object> w, String name) {
        for (Object s : Obj.list(Obj.at(w, "spec", "podSets"))) {
            if (name.equals(Obj.map(s).get("name"))) {
                return Obj.map(s);
            }
        }
        return new LinkedHashMap<>();
    }

    /** The names of a workload's pod sets that ask GPUs; the first pod set's alone when none does. */
    private static List<String> gpuPodSetNames(Map<String, Object> w) {
        List<String> out = new ArrayList<>();
        List<Object> sets = Obj.list(Obj.at(w, "spec", "podSets"));
        for (Object s : sets) {
            if (SimulatedPods.gpusPerPod(Obj.map(Obj.map(s).get("template"))) > 0) {
                out.add(String.valueOf(Obj.map(s).get("name")));
            }
        }
        if (out.isEmpty()) {
            out.add(sets.isEmpty() ? MAIN : String.valueOf(Obj.map(sets.get(0)).get("name")));
        }
        return out;
    }

    /** The GPU flavor assigned to the workload, or null when it holds none. */
    private static String gpuFlavor(Map<String, Object> w) {
        for (Object a : Obj.list(Obj.at(w, "status", "admission", "podSetAssignments"))) {
            String flavor = Obj.str(Obj.map(a), "flavors", GPU);
            if (flavor != null) {
                return flavor;
            }
        }
        return null;
    }

    /** GPUs a workload asks for: pods × GPUs per pod, summed over its pod sets. */
    private static long gpus(Map<String, Object> w) {
        long total = 0;
        for (Object s : Obj.list(Obj.at(w, "spec", "podSets"))) {
            Map<String, Object> set = Obj.map(s);
            total += Obj.num(set, 1, "count") * SimulatedPods.gpusPerPod(Obj.map(set.get("template")));
        }
        return total;
    }

    static long parallelism(Map<String, Object> job) {
        long parallelism = Obj.num(job, 1, "spec", "parallelism");
        long completions = Obj.num(job, parallelism, "spec", "completions");
        return Math.max(1, Math.min(parallelism, completions));
    }

    static long quantity(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        String s = value == null ? "" : value.toString().trim();
        return s.matches("\\d{1,18}") ? Long.parseLong(s) : 0;
    }

    static String uid(Map<String, Object> object) {
        return String.valueOf(Obj.at(object, "metadata", "uid"));
    }

    private static String ownerUid(Map<String, Object> object) {
        for (Object o : Obj.list(Obj.at(object, "metadata", "ownerReferences"))) {
            return String.valueOf(Obj.map(o).get("uid"));
        }
        return "";
    }

    static Map<String, Object> owner(String apiVersion, String kind, Map<String, Object> object) {
        Map<String, Object> ref = new LinkedHashMap<>();
        ref.put("apiVersion", apiVersion);
        ref.put("kind", kind);
        ref.put("name", Obj.name(object));
        ref.put("uid", uid(object));
        ref.put("controller", true);
        ref.put("blockOwnerDeletion", true);
        return ref;
    }

    static String jobPath(Map<String, Object> job) {
        return "/apis/batch/v1/namespaces/" + Obj.namespace(job) + "/jobs/" + Obj.name(job);
    }

    private static String path(Map<String, Object> object, String api, String plural) {
        return api + "/namespaces/" + Obj.namespace(object) + "/" + plural + "/" + Obj.name(object);
    }

    static String hash(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
