package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.ObservedJob;
import com.bettercompute.application.port.MarketClusterClient.ObservedRequest;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.x_k8s.autoscaling.v1.ProvisioningRequest;
import io.x_k8s.autoscaling.v1.ProvisioningRequestSpec;
import io.x_k8s.autoscaling.v1.provisioningrequestspec.PodSets;
import io.x_k8s.kueue.v1beta1.Workload;
import io.x_k8s.kueue.v1beta1.WorkloadSpec;
import io.x_k8s.kueue.v1beta1.WorkloadStatus;
import io.x_k8s.kueue.v1beta1.workloadstatus.AdmissionChecks;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One market-managed cluster's demand, read through four informers on one long-lived client: the
 * ProvisioningRequests ({@code autoscaling.x-k8s.io/v1}), PodTemplates, {@code batch/v1} Jobs and Kueue's
 * Workloads (both as the classes generated from their CRDs) (for the jobs its queue holds back for quota, which have no request yet). A request
 * leads to its job as Kueue links them: the request is owned by its Workload, the Workload by its job. The
 * Workload (at the API version its owner reference names, so any Kueue release serves) and a job of another
 * kind are read when {@link #jobs()} is asked, not informed.
 */
final class Fabric8DemandWatch implements MarketClusterClient.DemandWatch {
    static final ResourceDefinitionContext PROVISIONING_REQUESTS = new ResourceDefinitionContext.Builder()
            .withGroup(Fabric8MarketClusterClient.AUTOSCALING).withVersion("v1").withKind("ProvisioningRequest")
            .withPlural("provisioningrequests").withNamespaced(true).build();
    static final String GPU = PlatformObjectManifests.GPU;
    /** How long {@link #close()} lets the informers' first lists finish. */
    static final long START_WAIT_MILLIS = 5_000;

    private final ClusterApis.Lease lease;
    private final KubernetesClient client;
    private final SharedIndexInformer<ProvisioningRequest> requests;
    private final SharedIndexInformer<PodTemplate> templates;
    private final SharedIndexInformer<Job> batchJobs;
    /** Kueue's Workloads, read for the jobs its queue holds back for quota (no request filed for them yet). */
    private final SharedIndexInformer<Workload> workloads;
    /** The informers' first lists and watches: done (or failed) before the client may close under them. */
    private final CompletableFuture<Void> started;

    Fabric8DemandWatch(ClusterApis.Lease lease, Runnable onChange, long resyncMillis) {
        this.lease = lease;
        this.client = lease.client();
        ResourceEventHandler<HasMetadata> handler = onAnyChange(onChange);
        requests = client.resources(ProvisioningRequest.class).inAnyNamespace().runnableInformer(resyncMillis);
        templates = client.v1().podTemplates().inAnyNamespace().runnableInformer(resyncMillis);
        batchJobs = client.batch().v1().jobs().inAnyNamespace().runnableInformer(resyncMillis);
        workloads = client.resources(Workload.class).inAnyNamespace().runnableInformer(resyncMillis);
        requests.addEventHandler(handler);
        templates.addEventHandler(handler);
        batchJobs.addEventHandler(handler);
        workloads.addEventHandler(handler);
        started = CompletableFuture.allOf(requests.start().toCompletableFuture(),
                templates.start().toCompletableFuture(), batchJobs.start().toCompletableFuture(),
                workloads.start().toCompletableFuture());
    }

    /** An informer's handler that runs {@code onChange} on every add, update and delete. */
    static ResourceEventHandler<HasMetadata> onAnyChange(Runnable onChange) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(HasMetadata obj) {
                onChange.run();
            }

            @Override
            public void onUpdate(HasMetadata oldObj, HasMetadata newObj) {
                onChange.run();
            }

            @Override
            public void onDelete(HasMetadata obj, boolean deletedFinalStateUnknown) {
                onChange.run();
            }
        };
    }

    @Override
    public boolean synced() {
        return requests.hasSynced() && templates.hasSynced() && batchJobs.hasSynced() && workloads.hasSynced();
    }

    @Override
    public List<ObservedJob> jobs() {
        try {
            return readJobs();
        } catch (RuntimeException e) {
            throw ClusterApis.translate("read the cluster's demand", e);
        }
    }

    private List<ObservedJob> readJobs() {
        Map<String, Builder> byJob = new LinkedHashMap<>();
        List<ProvisioningRequest> all = new ArrayList<>(requests.getStore().list());
        all.sort(Comparator.comparing((ProvisioningRequest r) -> created(r)).thenComparing(r -> r.getMetadata().getName()));
        for (ProvisioningRequest request : all) {
            ProvisioningRequestSpec spec = request.getSpec();
            if (spec == null || !MarketClusterClient.PROVISIONING_CLASS.equals(spec.getProvisioningClassName())) {
                continue;
            }
            String namespace = request.getMetadata().getNamespace();
            OwnerReference workloadRef = owner(request, "Workload");
            if (workloadRef == null) {
                continue;
            }
            GenericKubernetesResource read = read(namespace, workloadRef.getApiVersion(), "Workload", workloadRef.getName());
            if (read == null) {
                continue;
            }
            Workload workload = client.getKubernetesSerialization().convertValue(read, Workload.class);
            OwnerReference jobRef = controller(workload);
            if (jobRef == null) {
                continue;
            }
            String key = namespace + "/" + jobRef.getKind() + "/" + jobRef.getName();
            Builder b = byJob.computeIfAbsent(key, k -> new Builder(new ObjectRef(jobRef.getApiVersion(), jobRef.getKind(),
                    namespace, jobRef.getName(), jobRef.getUid()), labels(namespace, jobRef)));
            b.ended |= finished(workload);
            b.gpus = gpus(namespace, spec);
            String nodeClass = nodeClass(namespace, spec);
            if (nodeClass != null) {
                b.nodeClass = nodeClass;
            }
            b.requests.add(observed(request));
        }
        List<ObservedJob> out = new ArrayList<>(byJob.values().stream().map(Builder::build).toList());
        for (Workload workload : workloads.getStore().list()) {
            OwnerReference jobRef = controller(workload);
            String namespace = workload.getMetadata().getNamespace();
            if (jobRef == null || byJob.containsKey(namespace + "/" + jobRef.getKind() + "/" + jobRef.getName())) {
                continue;
            }
            if (!waitsForQuota(workload)) {
                if (betweenAttempts(workload)) {
                    // Kueue deletes an attempt's request just before it files the next: a pass that reads the caches
                    // between the two still sees the job, so its open market request is not withdrawn.
                    Map<String, String> labels = labels(namespace, jobRef);
                    out.add(new ObservedJob(new ObjectRef(jobRef.getApiVersion(), jobRef.getKind(), namespace,
                            jobRef.getName(), jobRef.getUid()), null, 0, labels.get(MarketClusterClient.LIMIT_PRICE_LABEL),
                            labels.get(MarketClusterClient.PRIORITY_LABEL), false, List.of(), false));
                }
                continue;
            }
            int gpus = 0;
            String nodeClass = null;
            for (io.x_k8s.kueue.v1beta1.workloadspec.PodSets podSet : podSets(workload.getSpec())) {
                PodSpec podSpec = podSet.getTemplate() == null ? null : podSet.getTemplate().getSpec();
                if (podSpec == null) {
                    continue;
                }
                int count = podSet.getCount() == null ? 1 : podSet.getCount();
                for (Container c : podSpec.getContainers()) {
                    gpus += count * gpus(c);
                }
                String selected = podSpec.getNodeSelector() == null ? null
                        : podSpec.getNodeSelector().get(MarketClusterClient.NODE_CLASS_LABEL);
                if (nodeClass == null && selected != null) {
                    nodeClass = selected;
                }
            }
            if (gpus > 0) {
                Map<String, String> labels = labels(namespace, jobRef);
                out.add(new ObservedJob(new ObjectRef(jobRef.getApiVersion(), jobRef.getKind(), namespace, jobRef.getName(),
                        jobRef.getUid()), nodeClass, gpus, labels.get(MarketClusterClient.LIMIT_PRICE_LABEL),
                        labels.get(MarketClusterClient.PRIORITY_LABEL), false, List.of(), true));
            }
        }
        return out;
    }

    /**
     * Whether the Workload is active, not finished, and its market admission check waits for a request: {@code Retry}
     * after a failed attempt, {@code Pending} until the next (or first) is filed.
     */
    static boolean betweenAttempts(Workload workload) {
        if (finished(workload) || workload.getSpec() != null && Boolean.FALSE.equals(workload.getSpec().getActive())
                || workload.getStatus() == null || workload.getStatus().getAdmissionChecks() == null) {
            return false;
        }
        for (AdmissionChecks check : workload.getStatus().getAdmissionChecks()) {
            if (PlatformObjectManifests.CHECK.equals(check.getName())) {
                return check.getState() == AdmissionChecks.State.RETRY || check.getState() == AdmissionChecks.State.PENDING;
            }
        }
        return false;
    }

    /**
     * Kueue holds the Workload back for quota: not admitted, not finished, active, and its QuotaReserved=False
     * names insufficient quota (the max cluster size is the GPU flavors' quota).
     */
    static boolean waitsForQuota(Workload workload) {
        WorkloadStatus status = workload.getStatus();
        if (status != null && status.getAdmission() != null || finished(workload)
                || workload.getSpec() != null && Boolean.FALSE.equals(workload.getSpec().getActive())) {
            return false;
        }
        for (io.x_k8s.kueue.v1beta1.workloadstatus.Conditions c : workloadConditions(workload)) {
            if ("QuotaReserved".equals(c.getType())) {
                return c.getStatus() == io.x_k8s.kueue.v1beta1.workloadstatus.Conditions.Status.FALSE
                        && String.valueOf(c.getMessage()).contains("quota for " + GPU);
            }
        }
        return false;
    }

    private static List<io.x_k8s.kueue.v1beta1.workloadspec.PodSets> podSets(WorkloadSpec spec) {
        return spec == null || spec.getPodSets() == null ? List.of() : spec.getPodSets();
    }

    private static List<io.x_k8s.kueue.v1beta1.workloadstatus.Conditions> workloadConditions(Workload workload) {
        return workload.getStatus() == null || workload.getStatus().getConditions() == null ? List.of()
                : workload.getStatus().getConditions();
    }

    private static final class Builder {
        final ObjectRef job;
        final Map<String, String> labels;
        final List<ObservedRequest> requests = new ArrayList<>();
        boolean ended;
        int gpus;
        String nodeClass;

        Builder(ObjectRef job, Map<String, String> labels) {
            this.job = job;
            this.labels = labels;
        }

        ObservedJob build() {
            return new ObservedJob(job, nodeClass, gpus, labels.get(MarketClusterClient.LIMIT_PRICE_LABEL),
                    labels.get(MarketClusterClient.PRIORITY_LABEL), ended, requests);
        }
    }

    /**
     * The job's labels, live: from the Job informer for a batch/v1 Job, else read. A pod some controller made
     * (a Deployment's replica) also takes the labels its controllers carry and it does not (the limit price of a
     * Deployment applies to each of its replicas). Empty when it is gone.
     */
    private Map<String, String> labels(String namespace, OwnerReference job) {
        Map<String, String> own = ownLabels(namespace, job);
        if (!"Pod".equals(job.getKind())) {
            return own;
        }
        Map<String, String> merged = new LinkedHashMap<>(own);
        HasMetadata at = read(namespace, job.getApiVersion(), job.getKind(), job.getName());
        // a replica's controllers: its ReplicaSet and that one's Deployment, or its StatefulSet
        for (int depth = 0; depth < 2 && at != null; depth++) {
            OwnerReference up = controller(at);
            if (up == null || !"apps/v1".equals(up.getApiVersion())) {
                break;
            }
            at = read(namespace, up.getApiVersion(), up.getKind(), up.getName());
            if (at != null && at.getMetadata().getLabels() != null) {
                at.getMetadata().getLabels().forEach(merged::putIfAbsent);
            }
        }
        return merged;
    }

    private Map<String, String> ownLabels(String namespace, OwnerReference job) {
        HasMetadata found;
        if ("batch/v1".equals(job.getApiVersion()) && "Job".equals(job.getKind())) {
            found = batchJobs.getStore().getByKey(Cache.namespaceKeyFunc(namespace, job.getName()));
            if (found == null) {
                // Its informer may not have seen it yet: ask, rather than read its labels as absent.
                found = client.batch().v1().jobs().inNamespace(namespace).withName(job.getName()).get();
            }
        } else {
            found = read(namespace, job.getApiVersion(), job.getKind(), job.getName());
        }
        return found == null || found.getMetadata().getLabels() == null ? Map.of() : found.getMetadata().getLabels();
    }

    /** A namespaced object of any kind by its API version, its plural taken as Kubernetes forms most. */
    private GenericKubernetesResource read(String namespace, String apiVersion, String kind, String name) {
        int slash = apiVersion.indexOf('/');
        String lower = kind.toLowerCase(Locale.ROOT);
        ResourceDefinitionContext context = new ResourceDefinitionContext.Builder()
                .withGroup(slash < 0 ? "" : apiVersion.substring(0, slash))
                .withVersion(slash < 0 ? apiVersion : apiVersion.substring(slash + 1))
                .withKind(kind).withPlural(lower.endsWith("s") ? lower + "es" : lower + "s").withNamespaced(true).build();
        return client.genericKubernetesResources(context).inNamespace(namespace).withName(name).get();
    }

    /** GPUs per pod (limits, else requests, summed over containers) × count, summed over the pod sets. */
    private int gpus(String namespace, ProvisioningRequestSpec spec) {
        int total = 0;
        for (PodSets podSet : podSets(spec)) {
            PodTemplate template = template(namespace, podSet);
            int count = podSet.getCount() == null ? 1 : podSet.getCount();
            if (template == null || template.getTemplate() == null || template.getTemplate().getSpec() == null) {
                continue;
            }
            int perPod = 0;
            for (Container c : template.getTemplate().getSpec().getContainers()) {
                perPod += gpus(c);
            }
            total += perPod * count;
        }
        return total;
    }

    private static int gpus(Container c) {
        if (c.getResources() == null) {
            return 0;
        }
        Quantity q = c.getResources().getLimits() != null ? c.getResources().getLimits().get(GPU) : null;
        if (q == null && c.getResources().getRequests() != null) {
            q = c.getResources().getRequests().get(GPU);
        }
        return q == null ? 0 : q.getNumericalAmount().intValue();
    }

    private String nodeClass(String namespace, ProvisioningRequestSpec spec) {
        for (PodSets podSet : podSets(spec)) {
            PodTemplate template = template(namespace, podSet);
            if (template != null && template.getTemplate() != null && template.getTemplate().getSpec() != null
                    && template.getTemplate().getSpec().getNodeSelector() != null) {
                String c = template.getTemplate().getSpec().getNodeSelector().get(MarketClusterClient.NODE_CLASS_LABEL);
                if (c != null) {
                    return c;
                }
            }
        }
        return null;
    }

    private static List<PodSets> podSets(ProvisioningRequestSpec spec) {
        return spec.getPodSets() == null ? List.of() : spec.getPodSets();
    }

    private PodTemplate template(String namespace, PodSets podSet) {
        String name = podSet.getPodTemplateRef() == null ? null : podSet.getPodTemplateRef().getName();
        if (name == null) {
            return null;
        }
        PodTemplate cached = templates.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name));
        // Kueue writes the templates before the request, but their informer may not have seen them yet.
        return cached != null ? cached : client.v1().podTemplates().inNamespace(namespace).withName(name).get();
    }

    static ObservedRequest observed(ProvisioningRequest request) {
        Map<String, String> annotations = request.getMetadata().getAnnotations() == null ? Map.of()
                : request.getMetadata().getAnnotations();
        int changes;
        try {
            changes = Integer.parseInt(annotations.getOrDefault(MarketClusterClient.REASON_CHANGES_ANNOTATION, "0"));
        } catch (NumberFormatException e) {
            changes = 0;
        }
        return new ObservedRequest(request.getMetadata().getName(), request.getMetadata().getUid(), created(request),
                annotations.get(MarketClusterClient.MARKET_REQUEST_ANNOTATION), changes, conditions(request));
    }

    static List<Condition> conditions(ProvisioningRequest request) {
        if (request.getStatus() == null || request.getStatus().getConditions() == null) {
            return List.of();
        }
        List<Condition> out = new ArrayList<>();
        for (io.x_k8s.autoscaling.v1.provisioningrequeststatus.Conditions c : request.getStatus().getConditions()) {
            ZonedDateTime at = c.getLastTransitionTime();
            out.add(new Condition(c.getType(), c.getStatus() == null ? null : c.getStatus().getValue(), c.getReason(),
                    c.getMessage(), at == null ? null : at.toInstant()));
        }
        return out;
    }

    private static boolean finished(Workload workload) {
        return workloadConditions(workload).stream().anyMatch(c -> "Finished".equals(c.getType())
                && c.getStatus() == io.x_k8s.kueue.v1beta1.workloadstatus.Conditions.Status.TRUE);
    }

    private static OwnerReference owner(HasMetadata o, String kind) {
        if (o.getMetadata().getOwnerReferences() == null) {
            return null;
        }
        return o.getMetadata().getOwnerReferences().stream().filter(r -> kind.equals(r.getKind())).findFirst().orElse(null);
    }

    private static OwnerReference controller(HasMetadata o) {
        if (o.getMetadata().getOwnerReferences() == null) {
            return null;
        }
        return o.getMetadata().getOwnerReferences().stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst()
                .orElseGet(() -> o.getMetadata().getOwnerReferences().stream().findFirst().orElse(null));
    }

    private static Instant created(HasMetadata o) {
        Instant at = instant(o.getMetadata().getCreationTimestamp());
        return at == null ? Instant.EPOCH : at;
    }

    static Instant instant(Object text) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text.toString());
        } catch (DateTimeParseException e) {
            return null;
        }
    }


    /**
     * Stops the informers and closes the client once their first lists and watches are in (at most
     * {@value #START_WAIT_MILLIS} ms): a list still under way when the client closes fails, and fabric8 logs that
     * as an ERROR ("will stop") although nothing is wrong — the server stopping just as the market starts watching
     * a cluster would log it. The wait comes first because stopping an informer ends its start at once, not its
     * list.
     */
    @Override
    public void close() {
        try {
            started.get(START_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            // failed or still waiting for a cluster that does not answer: its informers say so themselves
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        requests.close();
        templates.close();
        batchJobs.close();
        workloads.close();
        lease.close();
    }
}
