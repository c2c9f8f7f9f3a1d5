package com.bettercompute.application.port;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The market's side of a market-managed tenant cluster, over the standard objects of Kueue and of the
 * cluster autoscaler's ProvisioningRequest API: it must not know whether the cluster is real or simulated.
 *
 * <p>Failures are {@link com.bettercompute.application.port.ProviderException}s, as for
 * {@link TenantClusterClient}; no library type and no token travels with them.
 */
public interface MarketClusterClient {

    /** The market's provisioning class, as ProvisioningRequests and the ProvisioningRequestConfig name it. */
    String PROVISIONING_CLASS = "market.nationalcompute.com";
    /** The API version of the ProvisioningRequests the market answers, as an Event names one. */
    String PROVISIONING_REQUEST_API = "autoscaling.x-k8s.io/v1";
    /** The label every object the platform owns in a tenant cluster carries, with the value {@code platform}. */
    String OWNED_BY = "nationalcompute.com/owned-by";
    String NODE_CLASS_LABEL = "nationalcompute.com/node-class";
    String REQUEST_LABEL = "nationalcompute.com/request";
    String MARKET_NODE_LABEL = "nationalcompute.com/market-node";
    /** The label ({@code "true"}) of a node of the cluster's base load block. */
    String BLOCK_NODE_LABEL = "nationalcompute.com/base-load-block";
    /**
     * The {@code provisioningClassDetails} key naming the provider node pool of the block node a sub-node request
     * is seated on; Kueue pins the request's pods to it through the node pool label {@link #NODE_POOL_LABEL}.
     */
    String BLOCK_NODE_DETAIL = "nationalcompute.com/block-node";
    String LIMIT_PRICE_LABEL = "nationalcompute.com/limit-price";
    String PRIORITY_LABEL = "kueue.x-k8s.io/priority-class";
    /** The GPU worker taint's key ({@code =true:NoSchedule}), tolerated by injection on admission. */
    String GPU_WORKER_TAINT = "nationalcompute.com/gpu-worker";
    /** The notice taint's key ({@code =true:NoSchedule}) on a node the market reclaims. */
    String PREEMPTING_TAINT = "nationalcompute.com/preempting";
    /** The taint of a node health checks took out of service: it stays in the cluster, cordoned, while investigated. */
    String OUT_OF_SERVICE_TAINT = "nationalcompute.com/out-of-service";
    /** The deadline of a notice, on the node's pods (and on the node, to name its rescind). */
    String PREEMPT_AT_ANNOTATION = "marketplace.nationalcompute.com/preempt-at";

    /**
     * Makes the platform's objects in the cluster what {@code objects} declares: creates what is missing,
     * replaces what differs (an edit or a deletion by anyone is undone by the next call), leaves what
     * matches untouched. Idempotent; safe to call on every resync.
     */
    void ensurePlatformObjects(ClusterConnection cluster, PlatformObjects objects);

    /**
     * Makes the cluster run the add-ons the market relies on — Kueue (configured for the market), JobSet and
     * the MPI Operator — at the versions the platform pins: applies each one's manifests in order (its kinds
     * before its controller, and the kinds Kueue integrates before Kueue), creating what is missing and
     * replacing what differs from the pinned manifest, so an edit or a deletion by anyone is undone and a new
     * pinned version rolls out; leaves alone what matches. Then reads whether each add-on's controller is
     * available. Idempotent; safe on every resync.
     *
     * @return each add-on as it stands now, in the order they are applied
     */
    List<ComponentStatus> ensureComponents(ClusterConnection cluster);

    /**
     * An add-on of a market-managed cluster as it stands: its name, the version the platform pins, whether its
     * controller is available, and what it waits for when it is not ({@code ""} when ready).
     */
    record ComponentStatus(String name, String version, boolean ready, String detail) {
    }

    /**
     * Starts watching the cluster's demand: the ProvisioningRequests of {@link #PROVISIONING_CLASS}, their
     * PodTemplates and the jobs that own them. {@code onChange} runs (on the watch's own thread, so it must
     * return quickly) after any of them changed; read the result with {@link DemandWatch#jobs()}.
     */
    DemandWatch watchDemand(ClusterConnection cluster, Runnable onChange);

    /**
     * Writes a ProvisioningRequest's status: sets each of {@code status.conditions()} by type (one whose
     * status is unchanged keeps its transition time; other types are left as they are), merges
     * {@code status.classDetails()} into {@code provisioningClassDetails}, and records which market request
     * it stands for in its {@link #MARKET_REQUEST_ANNOTATION} annotation. Writes nothing when all of it holds
     * already. A request that is gone is a success (its job was deleted).
     */
    void writeRequestStatus(ClusterConnection cluster, String namespace, String name, RequestStatus status);

    /**
     * Posts an Event on {@code on} under {@code eventName}, a name derived from what it reports: posting the
     * same name again is a success that changes nothing, so a replay never shows an Event twice.
     */
    void postEvent(ClusterConnection cluster, ObjectRef on, PostedEvent event);

    /** The cluster's nodes, as the API server has them now. */
    List<ClusterNode> nodes(ClusterConnection cluster);

    /**
     * Makes a node carry {@code marking}: its labels set (and {@code removedLabels} gone), its annotations set,
     * of the taints whose keys are in {@code ownedTaintKeys} exactly {@code taints} (other taints are left as
     * they are), and cordoned as {@link Cordon#next} says (a cordon the market did not make is never lifted).
     * Writes nothing when all of it holds. A node that is gone is a success.
     */
    void markNode(ClusterConnection cluster, String node, NodeMarking marking);

    /**
     * Makes every node of the provider's node pool {@code nodePool} (the nodes whose {@link #NODE_POOL_LABEL} names it)
     * carry {@code labels}, leaving their other labels, annotations, taints and cordon as they are: how the platform
     * gives nodes the labels no kubelet may give itself ({@code node-role.kubernetes.io/*}), a replacement node included.
     * Writes nothing to a node that carries them already; a node that goes away meanwhile is a success. Idempotent.
     *
     * @return how many nodes were written
     */
    int labelPoolNodes(ClusterConnection cluster, String nodePool, Map<String, String> labels);

    /** The pods bound to a node (listed and filtered here: not every API server selects by {@code spec.nodeName}). */
    List<PodOnNode> podsOn(ClusterConnection cluster, String node);

    /** Sets annotations on a pod; writes nothing when they hold. A pod that is gone is a success. */
    void annotatePod(ClusterConnection cluster, ObjectRef pod, Map<String, String> annotations);

    /**
     * Evicts a pod through the Eviction API with {@code graceSeconds} as its termination grace. A pod that is
     * gone is a success; an eviction a PodDisruptionBudget refuses for now (429) is a
     * {@link com.bettercompute.application.port.ProviderException.Kind#UNAVAILABLE} to try again.
     */
    void evictPod(ClusterConnection cluster, ObjectRef pod, long graceSeconds);

    /** A pod on a node: its reference, annotations, and whether it is terminating already. */
    record PodOnNode(ObjectRef pod, Map<String, String> annotations, boolean terminating) {
        public PodOnNode {
            annotations = Map.copyOf(annotations);
        }
    }

    /** The label GKE gives each node: the name of its node pool. */
    String NODE_POOL_LABEL = "cloud.google.com/gke-nodepool";

    /** A node: its labels and annotations, whether it is Ready and cordoned, its taints. */
    record ClusterNode(String name, Map<String, String> labels, Map<String, String> annotations, boolean ready,
                       boolean unschedulable, List<NodeTaint> taints) {
        public ClusterNode {
            labels = Map.copyOf(labels);
            annotations = Map.copyOf(annotations);
            taints = List.copyOf(taints);
        }
    }

    /** A node taint; {@code effect} is {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}. */
    record NodeTaint(String key, String value, String effect) {
    }

    /** What a market node should carry (see {@link #markNode}). */
    record NodeMarking(Map<String, String> labels, java.util.Set<String> removedLabels, Map<String, String> annotations,
                       java.util.Set<String> ownedTaintKeys, List<NodeTaint> taints, Cordon cordon) {
        public NodeMarking {
            labels = Map.copyOf(labels);
            removedLabels = java.util.Set.copyOf(removedLabels);
            annotations = Map.copyOf(annotations);
            ownedTaintKeys = java.util.Set.copyOf(ownedTaintKeys);
            taints = List.copyOf(taints);
        }
    }

    /**
     * The market's cordon of a node. The market owns only the cordons it made, and marks them with the
     * annotation {@link #MARK}: a cordon without it is the tenant's own scheduling choice, which the market
     * never lifts (a tenant's {@code kubectl cordon} of a market node stays as the tenant set it).
     */
    enum Cordon {
        /** Cordoned; the cordon is the market's (marked) unless the node was cordoned already without the mark. */
        HOLD,
        /** The market's own cordon lifted and its mark removed; a cordon without the mark stays. */
        RELEASE;

        /** The annotation that marks a cordon the market made. */
        public static final String MARK = "nationalcompute.com/cordoned-by-market";

        /** What a node that is {@code cordoned} (by the market when {@code marked}) becomes under this cordon. */
        public Cordoned next(boolean cordoned, boolean marked) {
            if (this == HOLD) {
                return new Cordoned(true, marked || !cordoned);
            }
            return marked ? new Cordoned(false, false) : new Cordoned(cordoned, false);
        }
    }

    /** A node's cordon and whether the market made it. */
    record Cordoned(boolean cordoned, boolean marked) {
    }

    /** The annotation on a ProvisioningRequest naming the market request it stands for. */
    String MARKET_REQUEST_ANNOTATION = "nationalcompute.com/market-request";
    /** The annotation on a ProvisioningRequest counting the reason changes posted as Events on its job. */
    String REASON_CHANGES_ANNOTATION = "nationalcompute.com/reason-changes";

    /** A Kubernetes object, as an Event's {@code involvedObject} names it. */
    record ObjectRef(String apiVersion, String kind, String namespace, String name, String uid) {
    }

    /** An Event to post: {@code type} is {@code Normal} or {@code Warning}. */
    record PostedEvent(String eventName, String type, String reason, String message, Instant at) {
    }

    /** A status condition of a ProvisioningRequest. {@code lastTransition} is null when unknown. */
    record Condition(String type, String status, String reason, String message, Instant lastTransition) {
    }

    /**
     * What a ProvisioningRequest should read: its status, and in its annotations the market request it stands
     * for and how many reason changes were posted as Events on its job (which names the next one).
     */
    record RequestStatus(String marketRequest, int reasonChanges, List<Condition> conditions,
                         Map<String, String> classDetails) {
        public RequestStatus {
            conditions = List.copyOf(conditions);
            classDetails = Map.copyOf(classDetails);
        }
    }

    /**
     * The desired platform objects of one cluster; {@code webhooks} null when the platform serves no admission
     * webhooks (then none are registered).
     */
    record PlatformObjects(long maxClusterGpus, List<NodeClass> nodeClasses, AdmissionEndpoints.Webhooks webhooks) {
        public PlatformObjects {
            nodeClasses = List.copyOf(nodeClasses);
        }

        public PlatformObjects(long maxClusterGpus, List<NodeClass> nodeClasses) {
            this(maxClusterGpus, nodeClasses, null);
        }
    }

    /** A node class the cluster may be granted, with the labels its nodes carry. */
    record NodeClass(String name, Map<String, String> nodeLabels) {
        public NodeClass {
            nodeLabels = Map.copyOf(nodeLabels);
        }
    }

    /** A running watch over one cluster; {@link #close()} stops it. */
    interface DemandWatch extends AutoCloseable {
        /** Whether the watch's caches have been filled once (before that, {@link #jobs()} may miss some). */
        boolean synced();

        /**
         * The cluster's jobs that have at least one market ProvisioningRequest, and those of its GPU jobs waiting
         * in its queue for quota ({@link ObservedJob#quotaWait}), as the caches hold them now.
         */
        List<ObservedJob> jobs();

        @Override
        void close();
    }

    /**
     * A job waiting for, or holding, market nodes, as the cluster shows it.
     *
     * @param job          the job (the owner of Kueue's Workload), with its kind and uid
     * @param nodeClass    the node class its pods ask for, null when none of its templates names one
     * @param gpus         the gang's GPUs: GPUs per pod × count, summed over its pod sets
     * @param limitLabel   its {@code nationalcompute.com/limit-price} label, null when absent
     * @param priorityLabel its {@code kueue.x-k8s.io/priority-class} label, null when absent
     * @param ended        the job finished (its Workload reads {@code Finished=True})
     * @param requests     its market ProvisioningRequests, oldest first
     * @param quotaWait    its Workload waits in the cluster's queue for lack of quota (QuotaReserved=False, the max
     *                     cluster size binds): no request filed yet, so {@code requests} is empty
     */
    record ObservedJob(ObjectRef job, String nodeClass, int gpus, String limitLabel, String priorityLabel,
                       boolean ended, List<ObservedRequest> requests, boolean quotaWait) {
        public ObservedJob {
            requests = List.copyOf(requests);
        }

        /** A job with market requests, not waiting for quota. */
        public ObservedJob(ObjectRef job, String nodeClass, int gpus, String limitLabel, String priorityLabel,
                           boolean ended, List<ObservedRequest> requests) {
            this(job, nodeClass, gpus, limitLabel, priorityLabel, ended, requests, false);
        }
    }

    /**
     * One ProvisioningRequest: its name and uid (Events name it by both), creation time, the market request it was
     * told it stands for ({@link #MARKET_REQUEST_ANNOTATION}, null before the first write), the reason changes posted
     * ({@link #REASON_CHANGES_ANNOTATION}, 0 before the first) and its status conditions.
     */
    record ObservedRequest(String name, String uid, Instant created, String marketRequest, int reasonChanges,
                           List<Condition> conditions) {
        public ObservedRequest {
            conditions = List.copyOf(conditions);
        }

        /** The condition of that type, null when it has none. */
        public Condition condition(String type) {
            return conditions.stream().filter(c -> c.type().equals(type)).findFirst().orElse(null);
        }

        /** Whether the market revoked it ({@code Failed=True}); Kueue then files the next attempt. */
        public boolean failed() {
            Condition c = condition("Failed");
            return c != null && "True".equals(c.status());
        }
    }
}
