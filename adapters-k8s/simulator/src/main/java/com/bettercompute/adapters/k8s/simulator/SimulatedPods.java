package com.bettercompute.adapters.k8s.simulator;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the Job controller, the scheduler and the kubelets would do in one simulated cluster, one round at a
 * time: nodes turn Ready a set time after they appear; an unsuspended Job gets its pods, a suspended one
 * loses them; a pod with no scheduling gate is bound to a Ready, schedulable node its selector, node affinity
 * (by node name, as a DaemonSet's pods ask) and tolerations allow with GPUs to spare, and runs; a pod whose
 * owner annotated it {@value #RUNS_FOR} succeeds that long after it started; a pod being deleted goes at its
 * deletion time; a pod whose node or controlling owner is gone goes at once (the garbage collector). The other
 * workload controllers make their pods through {@link #createPod}, so every controller's pods go through
 * admission the same way.
 */
final class SimulatedPods {
    static final String RUNS_FOR = "sim.better-compute.dev/runs-for";
    static final String JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
    static final long DEFAULT_GRACE_SECONDS = 30;
    /** Holds a pod in its graceful deletion until the simulated kubelet lets it go (see {@link #terminate}). */
    static final String KUBELET_FINALIZER = "sim.better-compute.dev/kubelet";
    private static final Pattern GO_DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");
    private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    /** How long the Job controller waits before making a pod again after admission refused one. */
    static final Duration REFUSED_BACKOFF = Duration.ofSeconds(10);

    private final ClusterStore store;
    private final Duration nodeReadyAfter;
    private final Predicate<Map<String, Object>> admissionWanted;
    private final SecureRandom random = new SecureRandom();
    /** Pods made by the Job controller that wait for the admission webhooks, called with no lock held. */
    private final List<Map<String, Object>> awaiting = new ArrayList<>();
    /** By owner uid: its pods waiting for or in admission (a controller's "expectations"), so none is made twice. */
    private final Map<String, Integer> inAdmission = new HashMap<>();
    /** By owner uid: when its controller tries again after admission refused one of its pods. */
    private final Map<String, Instant> refusedUntil = new HashMap<>();

    /**
     * The kinds that own pods here, by the collection their objects are in: a pod whose controlling owner of
     * one of these kinds is gone is removed, as the garbage collector removes dependents.
     */
    static final Map<String, String> OWNER_COLLECTIONS = Map.of(
            "Job", "/apis/batch/v1/jobs",
            "ReplicaSet", "/apis/apps/v1/replicasets",
            "StatefulSet", "/apis/apps/v1/statefulsets",
            "DaemonSet", "/apis/apps/v1/daemonsets",
            "MPIJob", SimulatedMpiJobs.COLLECTION);
    /** The controller that makes each owner kind's pods, as its FailedCreate events name it. */
    private static final Map<String, String> CONTROLLERS = Map.of(
            "Job", "job-controller", "ReplicaSet", "replicaset-controller", "StatefulSet", "statefulset-controller",
            "DaemonSet", "daemonset-controller", "MPIJob", "mpi-job-controller");
    static final String SCHEDULING_GATED = "SchedulingGated";

    /**
     * {@code admissionWanted} says whether a pod the Job controller makes goes through admission webhooks
     * first: such a pod is not created here but held for {@link #takeAwaiting()}, and made by
     * {@link #admitted} or not by {@link #refused}.
     */
    SimulatedPods(ClusterStore store, Duration nodeReadyAfter, Predicate<Map<String, Object>> admissionWanted) {
        this.store = store;
        this.nodeReadyAfter = nodeReadyAfter;
        this.admissionWanted = admissionWanted;
    }

    /** The pods waiting for admission, handed over once: each comes back through {@link #admitted} or {@link #refused}. */
    List<Map<String, Object>> takeAwaiting() {
        List<Map<String, Object>> taken = List.copyOf(awaiting);
        awaiting.clear();
        return taken;
    }

    /** Admission let a pod {@link #takeAwaiting()} gave through: it is created as admitted (mutated). */
    void admitted(Map<String, Object> pod, Map<String, Object> admitted) {
        inAdmission.computeIfPresent(ownerUid(pod), (k, n) -> n <= 1 ? null : n - 1);
        store.create("/api/v1/namespaces/" + Obj.namespace(pod) + "/pods", admitted);
    }

    /**
     * Admission refused a pod {@link #takeAwaiting()} gave (null message: the call could not be made): as its
     * controller, a {@code FailedCreate} Warning event on the owner, and no new pod for {@link #REFUSED_BACKOFF}.
     */
    void refused(Map<String, Object> pod, String message, Instant now) {
        String uid = ownerUid(pod);
        inAdmission.computeIfPresent(uid, (k, n) -> n <= 1 ? null : n - 1);
        refusedUntil.put(uid, now.plus(REFUSED_BACKOFF));
        if (message == null) {
            return;
        }
        Map<String, Object> owner = Obj.map(Obj.list(Obj.at(pod, "metadata", "ownerReferences")).get(0));
        String namespace = Obj.namespace(pod);
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            suffix.append(Character.forDigit(random.nextInt(16), 16));
        }
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("apiVersion", "v1");
        event.put("kind", "Event");
        event.put("metadata", Map.of("name", owner.get("name") + "." + suffix, "namespace", namespace));
        String component = CONTROLLERS.getOrDefault(String.valueOf(owner.get("kind")), "controller-manager");
        event.put("involvedObject", Map.of("apiVersion", owner.get("apiVersion"), "kind", owner.get("kind"), "name", owner.get("name"),
                "namespace", namespace, "uid", uid));
        event.put("reason", "FailedCreate");
        event.put("message", "Error creating: " + message);
        event.put("type", "Warning");
        event.put("source", Map.of("component", component));
        event.put("reportingComponent", component);
        event.put("firstTimestamp", now.toString());
        event.put("lastTimestamp", now.toString());
        event.put("count", 1);
        store.create("/api/v1/namespaces/" + namespace + "/events", event);
    }

    void reconcile(Instant now) {
        String stamp = now.toString();
        Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
        for (Map<String, Object> node : store.list("/api/v1/nodes")) {
            nodes.put(Obj.name(node), readiness(node, now, stamp));
        }
        List<Map<String, Object>> pods = new ArrayList<>();
        for (Map<String, Object> pod : store.list("/api/v1/pods")) {
            String node = Obj.str(pod, "spec", "nodeName");
            Instant deleteAt = Obj.instant(Obj.str(pod, "metadata", "deletionTimestamp"));
            if ((node != null && !nodes.containsKey(node)) || (deleteAt != null && !now.isBefore(deleteAt))) {
                remove(pod);
            } else {
                pods.add(pod);
            }
        }
        Map<String, Map<String, Object>> jobs = new HashMap<>();
        for (Map<String, Object> job : store.list("/apis/batch/v1/jobs")) {
            jobs.put(SimulatedKueue.uid(job), job);
        }
        Map<String, java.util.Set<String>> owners = new HashMap<>();
        OWNER_COLLECTIONS.forEach((kind, collection) -> owners.put(kind, kind.equals("Job") ? jobs.keySet()
                : store.list(collection).stream().map(SimulatedKueue::uid).collect(java.util.stream.Collectors.toSet())));
        refusedUntil.keySet().removeIf(uid -> owners.values().stream().noneMatch(s -> s.contains(uid)));
        List<Map<String, Object>> live = new ArrayList<>();
        for (Map<String, Object> pod : pods) {
            Map<String, Object> owner = controllerOf(pod);
            java.util.Set<String> alive = owner == null ? null : owners.get(String.valueOf(owner.get("kind")));
            if (alive != null && !alive.contains(String.valueOf(owner.get("uid")))) {
                remove(pod);
            } else {
                live.add(pod);
            }
        }
        for (Map<String, Object> job : jobs.values()) {
            syncJob(job, live, now, stamp);
        }
        schedule(nodes, store.list("/api/v1/pods"), now, stamp);
    }

    /** Turns a node Ready once it is old enough; the node as it is now. */
    private Map<String, Object> readiness(Map<String, Object> node, Instant now, String stamp) {
        Map<String, Object> ready = Obj.condition(node, "Ready");
        if (ready == null || "True".equals(ready.get("status"))) {
            return node;
        }
        Instant created = Obj.instant(String.valueOf(Obj.annotations(node).get(SimulatedKueue.CREATED_AT)));
        if (created != null && now.isBefore(created.plus(nodeReadyAfter))) {
            return node;
        }
        Map<String, Object> changed = Obj.copy(node);
        Obj.setCondition(changed, "Ready", "True", "KubeletReady", "kubelet is posting ready status", stamp);
        Map<String, Object> stored = store.replace("/api/v1/nodes/" + Obj.name(node), changed);
        return stored == null ? node : stored;
    }

    /** The Job controller, for one Job: pods made or removed to match, then the Job's status. */
    private void syncJob(Map<String, Object> job, List<Map<String, Object>> pods, Instant now, String stamp) {
        String uid = SimulatedKueue.uid(job);
        List<Map<String, Object>> mine = pods.stream().filter(p -> uid.equals(ownerUid(p))).toList();
        // As the Job controller's tracking finalizers do: a success is counted once and stays counted when
        // its pod goes (here with its node, when the market takes the idle node back).
        long succeeded = Math.max(Obj.num(job, 0, "status", "succeeded"),
                mine.stream().filter(p -> "Succeeded".equals(Obj.str(p, "status", "phase"))).count());
        List<Map<String, Object>> active = mine.stream().filter(p -> !terminal(p) && Obj.at(p, "metadata", "deletionTimestamp") == null).toList();
        long terminating = mine.stream().filter(p -> Obj.at(p, "metadata", "deletionTimestamp") != null).count();
        boolean suspended = Boolean.TRUE.equals(Obj.at(job, "spec", "suspend"));
        boolean complete = Obj.isTrue(job, "Complete");
        long completions = Obj.num(job, Obj.num(job, 1, "spec", "parallelism"), "spec", "completions");
        if (suspended || complete) {
            for (Map<String, Object> pod : active) {
                terminate(pod, graceOf(pod), now);
            }
            active = List.of();
        } else {
            // podReplacementPolicy Failed: no replacement while a pod is terminating (the default replaces it at once)
            long held = "Failed".equals(Obj.str(job, "spec", "podReplacementPolicy")) ? terminating : 0;
            long wanted = Math.min(SimulatedKueue.parallelism(job), completions - succeeded) - active.size() - held
                    - inAdmission(uid);
            if (backingOff(uid, now)) {
                wanted = 0;
            }
            List<Map<String, Object>> made = new ArrayList<>(active);
            for (long i = 0; i < wanted; i++) {
                Map<String, Object> created = createPod(newPod(job));
                if (created != null) {
                    made.add(created);
                }
            }
            active = made;
        }
        Map<String, Object> changed = Obj.copy(job);
        Map<String, Object> status = Obj.child(changed, "status");
        status.put("active", active.size());
        status.put("succeeded", succeeded);
        status.put("terminating", terminating);
        status.put("ready", active.stream().filter(p -> "Running".equals(Obj.str(p, "status", "phase"))).count());
        if (suspended) {
            Obj.setCondition(changed, "Suspended", "True", "JobSuspended", "Job suspended", stamp);
        } else if (Obj.condition(changed, "Suspended") != null) {
            Obj.setCondition(changed, "Suspended", "False", "JobResumed", "Job resumed", stamp);
        }
        if (!suspended && status.get("startTime") == null) {
            status.put("startTime", stamp);
        }
        if (!complete && succeeded >= completions) {
            Obj.setCondition(changed, "SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods", stamp);
            Obj.setCondition(changed, "Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods", stamp);
            status.put("completionTime", stamp);
        }
        if (!changed.equals(job)) {
            store.replace(SimulatedKueue.jobPath(job), changed);
        }
    }

    /**
     * Makes a pod as a controller does: through the admission webhooks when any would be called (then it is
     * held for {@link #takeAwaiting()} and counted in {@link #inAdmission} until admission answers), else at
     * once. The pod created, or null when it is not (yet).
     */
    Map<String, Object> createPod(Map<String, Object> pod) {
        if (admissionWanted.test(pod)) {
            awaiting.add(pod);
            inAdmission.merge(ownerUid(pod), 1, Integer::sum);
            return null;
        }
        return store.create("/api/v1/namespaces/" + Obj.namespace(pod) + "/pods", pod);
    }

    /** How many pods of this owner wait for admission. */
    int inAdmission(String ownerUid) {
        return inAdmission.getOrDefault(ownerUid, 0);
    }

    /** Whether this owner's controller waits after admission refused one of its pods. */
    boolean backingOff(String ownerUid, Instant now) {
        Instant refused = refusedUntil.get(ownerUid);
        return refused != null && now.isBefore(refused);
    }

    /** A random suffix as controllers give generated pod names. */
    String suffix() {
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return suffix.toString();
    }

    private Map<String, Object> newPod(Map<String, Object> job) {
        Map<String, Object> template = Obj.copy(Obj.map(Obj.at(job, "spec", "template")));
        Map<String, Object> metadata = Obj.child(template, "metadata");
        metadata.put("name", Obj.name(job) + "-" + suffix());
        metadata.put("namespace", Obj.namespace(job));
        Map<String, Object> labels = Obj.child(metadata, "labels");
        labels.put(JOB_NAME_LABEL, Obj.name(job));
        labels.put("job-name", Obj.name(job));
        labels.put("batch.kubernetes.io/controller-uid", SimulatedKueue.uid(job));
        labels.put("controller-uid", SimulatedKueue.uid(job));
        Object runsFor = Obj.annotations(job).get(RUNS_FOR);
        if (runsFor != null) {
            Obj.child(metadata, "annotations").put(RUNS_FOR, runsFor.toString());
        }
        metadata.put("ownerReferences", List.of(SimulatedKueue.owner("batch/v1", "Job", job)));
        Map<String, Object> pod = new LinkedHashMap<>();
        pod.put("apiVersion", "v1");
        pod.put("kind", "Pod");
        pod.put("metadata", metadata);
        Map<String, Object> spec = Obj.child(template, "spec");
        spec.putIfAbsent("restartPolicy", "Never");
        pod.put("spec", spec);
        pod.put("status", new LinkedHashMap<>(Map.of("phase", "Pending")));
        return pod;
    }

    /** The scheduler and the kubelets: pending pods bound where they fit; bound pods run; finished runs succeed. */
    private void schedule(Map<String, Map<String, Object>> nodes, List<Map<String, Object>> pods, Instant now, String stamp) {
        Map<String, Long> gpusUsed = new HashMap<>();
        for (Map<String, Object> pod : pods) {
            String node = Obj.str(pod, "spec", "nodeName");
            if (node != null && !terminal(pod)) {
                gpusUsed.merge(node, gpusPerPod(pod), Long::sum);
            }
        }
        for (Map<String, Object> pod : pods) {
            if (terminal(pod) || Obj.at(pod, "metadata", "deletionTimestamp") != null) {
                continue;
            }
            Map<String, Object> changed = Obj.copy(pod);
            String node = Obj.str(pod, "spec", "nodeName");
            if (node == null && gated(pod)) {
                // As the scheduler: a pod with scheduling gates waits, whatever the nodes offer.
                Obj.setCondition(changed, "PodScheduled", "False", SCHEDULING_GATED,
                        "Scheduling is blocked due to non-empty scheduling gates", stamp);
            } else if (node == null) {
                String chosen = choose(pod, nodes, gpusUsed);
                if (chosen == null) {
                    Obj.setCondition(changed, "PodScheduled", "False", "Unschedulable",
                            "0/" + nodes.size() + " nodes are available: no Ready, schedulable node matches the pod's node selector, "
                                    + "tolerations and GPUs", stamp);
                } else {
                    gpusUsed.merge(chosen, gpusPerPod(pod), Long::sum);
                    Obj.child(changed, "spec").put("nodeName", chosen);
                    Obj.setCondition(changed, "PodScheduled", "True", "Scheduled", "", stamp);
                    node = chosen;
                }
            }
            // a pod created without a status (kubectl's) is Pending, as the API server makes it
            String phase = Obj.str(changed, "status", "phase");
            if (node != null && (phase == null || "Pending".equals(phase)) && Obj.isTrue(nodes.get(node), "Ready")) {
                Map<String, Object> status = Obj.child(changed, "status");
                status.put("phase", "Running");
                status.put("startTime", stamp);
                Obj.setCondition(changed, "Ready", "True", "", "", stamp);
                Obj.setCondition(changed, "ContainersReady", "True", "", "", stamp);
            }
            Duration runsFor = goDuration(String.valueOf(Obj.annotations(pod).get(RUNS_FOR)));
            Instant started = Obj.instant(Obj.str(changed, "status", "startTime"));
            if ("Running".equals(Obj.str(changed, "status", "phase")) && runsFor != null && started != null
                    && !now.isBefore(started.plus(runsFor))) {
                Obj.child(changed, "status").put("phase", "Succeeded");
                Obj.setCondition(changed, "Ready", "False", "PodCompleted", "", stamp);
                Obj.setCondition(changed, "ContainersReady", "False", "PodCompleted", "", stamp);
            }
            if (!changed.equals(pod)) {
                store.replace(podPath(pod), changed);
            }
        }
    }

    /** Whether the pod carries scheduling gates (the scheduler leaves it alone until they are gone). */
    static boolean gated(Map<String, Object> pod) {
        return !Obj.list(Obj.at(pod, "spec", "schedulingGates")).isEmpty();
    }

    private static String choose(Map<String, Object> pod, Map<String, Map<String, Object>> nodes, Map<String, Long> gpusUsed) {
        Map<String, Object> selector = Obj.map(Obj.at(pod, "spec", "nodeSelector"));
        List<Object> tolerations = Obj.list(Obj.at(pod, "spec", "tolerations"));
        List<String> names = nodeNamesRequired(pod);
        long gpus = gpusPerPod(pod);
        for (Map<String, Object> node : nodes.values()) {
            Map<String, Object> labels = Obj.labels(node);
            boolean selected = selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))
                    && (names == null || names.contains(Obj.name(node)));
            boolean schedulable = !Boolean.TRUE.equals(Obj.at(node, "spec", "unschedulable")) && Obj.isTrue(node, "Ready");
            boolean tolerated = Obj.list(Obj.at(node, "spec", "taints")).stream()
                    .allMatch(t -> "PreferNoSchedule".equals(Obj.map(t).get("effect")) || tolerates(tolerations, Obj.map(t)));
            long capacity = SimulatedKueue.quantity(Obj.at(node, "status", "allocatable", SimulatedKueue.GPU));
            boolean fits = gpus == 0 || capacity - gpusUsed.getOrDefault(Obj.name(node), 0L) >= gpus;
            if (selected && schedulable && tolerated && fits) {
                return Obj.name(node);
            }
        }
        return null;
    }

    /**
     * The node names a pod's required node affinity allows by {@code matchFields} on {@code metadata.name} (what
     * the DaemonSet controller writes), or null when it names none. Other affinity terms are not read here.
     */
    private static List<String> nodeNamesRequired(Map<String, Object> pod) {
        List<String> names = new ArrayList<>();
        boolean named = false;
        for (Object term : Obj.list(Obj.at(pod, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms"))) {
            for (Object field : Obj.list(Obj.map(term).get("matchFields"))) {
                Map<String, Object> f = Obj.map(field);
                if ("metadata.name".equals(f.get("key")) && "In".equals(f.get("operator"))) {
                    named = true;
                    Obj.list(f.get("values")).forEach(v -> names.add(String.valueOf(v)));
                }
            }
        }
        return named ? names : null;
    }

    static boolean tolerates(List<Object> tolerations, Map<String, Object> taint) {
        for (Object t : tolerations) {
            Map<String, Object> toleration = Obj.map(t);
            Object key = toleration.get("key");
            Object effect = toleration.get("effect");
            boolean keyMatches = key == null || "".equals(key) ? "Exists".equals(toleration.get("operator")) : key.equals(taint.get("key"));
            boolean valueMatches = "Exists".equals(toleration.get("operator"))
                    || String.valueOf(toleration.getOrDefault("value", "")).equals(String.valueOf(taint.getOrDefault("value", "")));
            boolean effectMatches = effect == null || "".equals(effect) || effect.equals(taint.get("effect"));
            if (keyMatches && valueMatches && effectMatches) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts a pod's graceful deletion as the API server does for a DELETE or an eviction: a deletion
     * time {@code grace} from now; the kubelet removes the pod then. True if anything changed.
     */
    boolean terminate(Map<String, Object> pod, long graceSeconds, Instant now) {
        // as the API server: a pod no node runs has no kubelet to wait for, and goes at once
        if (graceSeconds <= 0 || Obj.str(pod, "spec", "nodeName") == null) {
            return remove(pod);
        }
        Instant at = now.plusSeconds(graceSeconds);
        Instant set = Obj.instant(Obj.str(pod, "metadata", "deletionTimestamp"));
        if (set != null && !set.isAfter(at)) {
            return false;
        }
        Map<String, Object> changed = Obj.copy(pod);
        // The CRUD mock drops an object whose deletion time is set unless a finalizer holds it: the kubelet's does.
        List<Object> finalizers = Obj.childList(Obj.child(changed, "metadata"), "finalizers");
        if (!finalizers.contains(KUBELET_FINALIZER)) {
            finalizers.add(KUBELET_FINALIZER);
        }
        Obj.child(changed, "metadata").put("deletionTimestamp", at.toString());
        Obj.child(changed, "metadata").put("deletionGracePeriodSeconds", graceSeconds);
        return store.replace(podPath(pod), changed) != null;
    }

    /** Deletes a pod now, letting go of the kubelet's finalizer if it holds one. */
    private boolean remove(Map<String, Object> pod) {
        List<Object> finalizers = Obj.list(Obj.at(pod, "metadata", "finalizers"));
        if (finalizers.contains(KUBELET_FINALIZER)) {
            Map<String, Object> released = Obj.copy(pod);
            Obj.childList(Obj.child(released, "metadata"), "finalizers").remove(KUBELET_FINALIZER);
            store.replace(podPath(pod), released);
        }
        return store.delete(podPath(pod));
    }

    static long graceOf(Map<String, Object> pod) {
        return Obj.num(pod, DEFAULT_GRACE_SECONDS, "spec", "terminationGracePeriodSeconds");
    }

    /** GPUs a pod (or pod template) asks for: the sum over its containers of the GPU limit, else request. */
    static long gpusPerPod(Map<String, Object> podOrTemplate) {
        long total = 0;
        for (Object c : Obj.list(Obj.at(podOrTemplate, "spec", "containers"))) {
            Map<String, Object> resources = Obj.map(Obj.map(c).get("resources"));
            Object limit = Obj.map(resources.get("limits")).get(SimulatedKueue.GPU);
            Object request = Obj.map(resources.get("requests")).get(SimulatedKueue.GPU);
            total += SimulatedKueue.quantity(limit != null ? limit : request);
        }
        return total;
    }

    /** A Go duration as Kubernetes writes them ({@code 10m}, {@code 1h30m}, {@code 90s}, {@code 500ms}); null if it is not one. */
    static Duration goDuration(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Matcher m = GO_DURATION.matcher(text.trim());
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                return null;
            }
            end = m.end();
            double amount = Double.parseDouble(m.group(1));
            long millis = switch (m.group(2)) {
                case "h" -> Math.round(amount * 3_600_000);
                case "m" -> Math.round(amount * 60_000);
                case "s" -> Math.round(amount * 1000);
                default -> Math.round(amount);
            };
            total = total.plusMillis(millis);
        }
        return end == text.trim().length() && end > 0 ? total : null;
    }

    private static boolean terminal(Map<String, Object> pod) {
        String phase = Obj.str(pod, "status", "phase");
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** The object's controlling owner reference (the first owner when none is marked controller), or null. */
    static Map<String, Object> controllerOf(Map<String, Object> object) {
        List<Object> owners = Obj.list(Obj.at(object, "metadata", "ownerReferences"));
        for (Object o : owners) {
            if (Boolean.TRUE.equals(Obj.map(o).get("controller"))) {
                return Obj.map(o);
            }
        }
        return owners.isEmpty() ? null : Obj.map(owners.get(0));
    }

    /** The uid of the object's controlling owner, or null when it has none. */
    static String ownerUid(Map<String, Object> object) {
        Map<String, Object> owner = controllerOf(object);
        return owner == null ? null : String.valueOf(owner.get("uid"));
    }

    static String podPath(Map<String, Object> pod) {
        return "/api/v1/namespaces/" + Obj.namespace(pod) + "/pods/" + Obj.name(pod);
    }
}
