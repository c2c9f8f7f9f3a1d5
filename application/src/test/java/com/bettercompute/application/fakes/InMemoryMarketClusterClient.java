package com.bettercompute.application.fakes;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One tenant cluster's jobs and ProvisioningRequests in memory, as Kueue would have filed them, with what
 * the market wrote back: request statuses (conditions merged by type, as the adapter does), Events (kept
 * once per name, as the API server does) and the platform objects last ensured. Each call holds the fake's lock, so
 * a pass's threads may call it at once; {@link #beforeComponents} runs outside it.
 */
public final class InMemoryMarketClusterClient implements MarketClusterClient {
    /** A job as the fake cluster holds it. */
    public static final class Job {
        public final ObjectRef ref;
        public String nodeClass;
        public int gpus;
        public String limitLabel;
        public String priorityLabel;
        public boolean ended;
        /** Its Workload waits for quota: Kueue files no request for it yet. */
        public boolean quotaWait;
        public final List<String> requests = new ArrayList<>();

        Job(ObjectRef ref) {
            this.ref = ref;
        }
    }

    /** A ProvisioningRequest as the fake cluster holds it. */
    public static final class Request {
        public final String name;
        public final Instant created;
        public String marketRequest;
        public int reasonChanges;
        public final Map<String, Condition> conditions = new LinkedHashMap<>();
        public final Map<String, String> classDetails = new HashMap<>();
        public int statusWrites;

        Request(String name, Instant created) {
            this.name = name;
            this.created = created;
        }
    }

    public final Map<String, Job> jobs = new LinkedHashMap<>();
    public final Map<String, Request> requests = new LinkedHashMap<>();
    /** Events by name, in posting order; a name posted again is not added twice. */
    public final Map<String, PostedEvent> events = new LinkedHashMap<>();
    /** What each of {@link #events} was posted on, by the same key. */
    public final Map<String, ObjectRef> eventObjects = new LinkedHashMap<>();
    public final List<PlatformObjects> ensured = new ArrayList<>();
    /** The cluster's nodes by name. */
    public final Map<String, ClusterNode> nodes = new LinkedHashMap<>();
    public int nodeWrites;
    /** Pods by node name. */
    public final Map<String, List<PodOnNode>> pods = new LinkedHashMap<>();
    /** Evictions asked: the pod's name and the grace given. */
    public final List<Map.Entry<String, Long>> evictions = new ArrayList<>();
    /** The add-ons as {@link #ensureComponents} reports them; each call is counted. */
    public final List<ComponentStatus> components = new ArrayList<>(List.of(new ComponentStatus("Kueue", "v1", true, "")));
    public int componentPasses;
    /** When set, every call fails with it. */
    public RuntimeException failure;
    /** Run at the start of every {@link #ensureComponents}, outside the lock: a test holds or fails a cluster's call there. */
    public volatile Consumer<ClusterConnection> beforeComponents = cluster -> { };

    public synchronized Job job(String namespace, String name, int gpus, String nodeClass) {
        Job j = new Job(new ObjectRef("batch/v1", "Job", namespace, name, "uid-" + name));
        j.gpus = gpus;
        j.nodeClass = nodeClass;
        jobs.put(namespace + "/" + name, j);
        return j;
    }

    /** A GPU pod Kueue's pod integration holds gated (a bare pod or a replica): a job of its own, kind Pod. */
    public synchronized Job gatedPod(String namespace, String name, int gpus, String nodeClass) {
        Job j = new Job(new ObjectRef("v1", "Pod", namespace, name, "uid-" + name));
        j.gpus = gpus;
        j.nodeClass = nodeClass;
        jobs.put(namespace + "/Pod:" + name, j);
        return j;
    }

    /** The job and its requests gone, as when its pod or Job is deleted (Kueue's Workload and requests go with it). */
    public synchronized void delete(Job job) {
        jobs.values().remove(job);
        job.requests.forEach(name -> requests.remove(job.ref.namespace() + "/" + name));
    }

    public synchronized Request request(Job job, String name, Instant created) {
        Request r = new Request(name, created);
        requests.put(job.ref.namespace() + "/" + name, r);
        job.requests.add(name);
        return r;
    }

    public synchronized Request request(String namespace, String name) {
        return requests.get(namespace + "/" + name);
    }

    public synchronized List<ObservedJob> observed() {
        List<ObservedJob> out = new ArrayList<>();
        for (Job j : jobs.values()) {
            List<ObservedRequest> rs = new ArrayList<>();
            for (String name : j.requests) {
                Request r = requests.get(j.ref.namespace() + "/" + name);
                if (r != null) {
                    rs.add(new ObservedRequest(r.name, "uid-" + r.name, r.created, r.marketRequest, r.reasonChanges,
                            new ArrayList<>(r.conditions.values())));
                }
            }
            if (!rs.isEmpty() || j.quotaWait) {
                out.add(new ObservedJob(j.ref, j.nodeClass, j.gpus, j.limitLabel, j.priorityLabel, j.ended, rs,
                        j.quotaWait && rs.isEmpty()));
            }
        }
        return out;
    }

    public synchronized List<PostedEvent> eventsWithReason(String reason) {
        return events.values().stream().filter(e -> e.reason().equals(reason)).toList();
    }

    /** The events posted on objects of that kind, in the order posted. */
    public synchronized List<PostedEvent> eventsOn(String kind) {
        return events.entrySet().stream().filter(e -> eventObjects.get(e.getKey()).kind().equals(kind)).map(Map.Entry::getValue).toList();
    }

    /** The objects events of that reason were posted on. */
    public synchronized List<ObjectRef> objectsOf(String reason) {
        return events.entrySet().stream().filter(e -> e.getValue().reason().equals(reason)).map(e -> eventObjects.get(e.getKey())).toList();
    }

    @Override
    public List<ComponentStatus> ensureComponents(ClusterConnection cluster) {
        beforeComponents.accept(cluster);
        synchronized (this) {
            failIfAsked();
            componentPasses++;
            return List.copyOf(components);
        }
    }

    @Override
    public synchronized void ensurePlatformObjects(ClusterConnection cluster, PlatformObjects objects) {
        failIfAsked();
        ensured.add(objects);
    }

    @Override
    public synchronized DemandWatch watchDemand(ClusterConnection cluster, Runnable onChange) {
        failIfAsked();
        return new DemandWatch() {
            @Override
            public boolean synced() {
                return true;
            }

            @Override
            public List<ObservedJob> jobs() {
                return observed();
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public synchronized void writeRequestStatus(ClusterConnection cluster, String namespace, String name, RequestStatus status) {
        failIfAsked();
        Request r = requests.get(namespace + "/" + name);
        if (r == null) {
            return;
        }
        r.marketRequest = status.marketRequest();
        r.reasonChanges = status.reasonChanges();
        for (Condition c : status.conditions()) {
            r.conditions.put(c.type(), c);
        }
        r.classDetails.putAll(status.classDetails());
        r.statusWrites++;
    }

    @Override
    public synchronized void postEvent(ClusterConnection cluster, ObjectRef on, PostedEvent event) {
        failIfAsked();
        events.putIfAbsent(on.namespace() + "/" + event.eventName(), event);
        eventObjects.putIfAbsent(on.namespace() + "/" + event.eventName(), on);
    }

    /** A node joins, as the provider's pool would make it: the pool label, Ready or not. */
    public synchronized void node(String name, String pool, boolean ready) {
        nodes.put(name, new ClusterNode(name, Map.of(NODE_POOL_LABEL, pool), Map.of(), ready, false, List.of()));
    }

    @Override
    public synchronized List<ClusterNode> nodes(ClusterConnection cluster) {
        failIfAsked();
        return List.copyOf(nodes.values());
    }

    @Override
    public synchronized void markNode(ClusterConnection cluster, String node, NodeMarking marking) {
        failIfAsked();
        ClusterNode n = nodes.get(node);
        if (n == null) {
            return;
        }
        Map<String, String> labels = new HashMap<>(n.labels());
        labels.putAll(marking.labels());
        marking.removedLabels().forEach(labels::remove);
        Map<String, String> annotations = new HashMap<>(n.annotations());
        annotations.putAll(marking.annotations());
        List<NodeTaint> taints = new ArrayList<>(n.taints().stream().filter(t -> !marking.ownedTaintKeys().contains(t.key())).toList());
        taints.addAll(marking.taints());
        MarketClusterClient.Cordoned cordon = marking.cordon().next(n.unschedulable(),
                "true".equals(annotations.get(MarketClusterClient.Cordon.MARK)));
        if (cordon.marked()) {
            annotations.put(MarketClusterClient.Cordon.MARK, "true");
        } else {
            annotations.remove(MarketClusterClient.Cordon.MARK);
        }
        ClusterNode next = new ClusterNode(node, labels, annotations, n.ready(), cordon.cordoned(), taints);
        if (!next.equals(n)) {
            nodes.put(node, next);
            nodeWrites++;
        }
    }

    @Override
    public synchronized int labelPoolNodes(ClusterConnection cluster, String nodePool, Map<String, String> labels) {
        failIfAsked();
        int written = 0;
        for (ClusterNode n : List.copyOf(nodes.values())) {
            if (!nodePool.equals(n.labels().get(NODE_POOL_LABEL)) || n.labels().entrySet().containsAll(labels.entrySet())) {
                continue;
            }
            Map<String, String> next = new HashMap<>(n.labels());
            next.putAll(labels);
            nodes.put(n.name(), new ClusterNode(n.name(), next, n.annotations(), n.ready(), n.unschedulable(), n.taints()));
            nodeWrites++;
            written++;
        }
        return written;
    }

    /** A running pod on a node. */
    public synchronized void pod(String node, String namespace, String name) {
        pods.computeIfAbsent(node, n -> new ArrayList<>()).add(new PodOnNode(new ObjectRef("v1", "Pod", namespace, name,
                "uid-" + name), Map.of(), false));
    }

    @Override
    public synchronized List<PodOnNode> podsOn(ClusterConnection cluster, String node) {
        failIfAsked();
        return List.copyOf(pods.getOrDefault(node, List.of()));
    }

    @Override
    public synchronized void annotatePod(ClusterConnection cluster, ObjectRef pod, Map<String, String> annotations) {
        failIfAsked();
        for (List<PodOnNode> onNode : pods.values()) {
            onNode.replaceAll(p -> {
                if (!p.pod().equals(pod)) {
                    return p;
                }
                Map<String, String> next = new HashMap<>(p.annotations());
                next.putAll(annotations);
                return new PodOnNode(p.pod(), next, p.terminating());
            });
        }
    }

    @Override
    public synchronized void evictPod(ClusterConnection cluster, ObjectRef pod, long graceSeconds) {
        failIfAsked();
        evictions.add(Map.entry(pod.name(), graceSeconds));
        for (List<PodOnNode> onNode : pods.values()) {
            onNode.replaceAll(p -> p.pod().equals(pod) ? new PodOnNode(p.pod(), p.annotations(), true) : p);
        }
    }

    private void failIfAsked() {
        if (failure != null) {
            throw failure;
        }
    }
}
