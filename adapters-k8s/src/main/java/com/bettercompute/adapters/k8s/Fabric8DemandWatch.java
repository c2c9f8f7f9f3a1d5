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
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;

import java.time.Instant;
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
 * Workloads (for the jobs its queue holds back for quota, which have no request yet). A request
 * leads to its job as Kueue links them: the request is owned by its Workload, the Workload by its job. The
 * Workload (at the API version its owner reference names, so any Kueue release serves) and a job of another
 * kind are read when {@link #jobs()} is asked, not informed.
 */
final class Fabric8DemandWatch implements MarketClusterClient.DemandWatch {
    /** Kueue's Workloads, read for the jobs its queue holds back for quota (no request filed for them yet). */
    static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder()
            .withGroup("kueue.x-k8s.io").withVersion("v1beta1").withKind("Workload").withPlural("workloads")
            .withNamespaced(true).build();
    static final ResourceDefinitionContext PROVISIONING_REQUESTS = new ResourceDefinitionContext.Builder()
            .withGroup(Fabric8MarketClusterClient.AUTOSCALING).withVersion("v1").withKind("ProvisioningRequest")
            .withPlural("provisioningrequests").withNamespaced(true).build();
    static final String GPU = PlatformObjectManifests.GPU;
    /** How long {@link #close()} lets the informers' first lists finish. */
    static final long START_WAIT_MILLIS = 5_000;

    private final ClusterApis.Lease lease;
    private final KubernetesClient client;
    private final SharedIndexInformer<GenericKubernetesResource> requests;
    private final SharedIndexInformer<PodTemplate> templates;
    private final SharedIndexInformer<Job> batchJobs;
    private final SharedIndexInformer<GenericKubernetesResource> workloads;
    /** The informers' first lists and watches: done (or failed) before the client may close under them. */
    private final CompletableFuture<Void> started;

    Fabric8DemandWatch(ClusterApis.Lease lease, Runnable onChange, long resyncMillis) {
        this.lease = lease;
        this.client = lease.client();
        ResourceEventHandler<HasMetadata> handler = onAnyChange(onChange);
        requests = client.genericKubernetesResources(PROVISIONING_REQUESTS).inAnyNamespace().runnableInformer(resyncMillis);
        templates = client.v1().podTemplates().inAnyNamespace().runnableInformer(resyncMillis);
        batchJobs = client.batch().v1().jobs().inAnyNamespace().runnableInformer(resyncMillis);
        workloads = client.genericKubernetesResources(WORKLOADS).inAnyNamespace().runnableInformer(resyncMillis);
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
        List<GenericKubernetesResource> all = new ArrayList<>(requests.getStore().list());
        all.sort(Comparator.comparing((GenericKubernetesResource r) -> created(r)).thenComparing(r -> r.getMetadata().getName()));
        for (GenericKubernetesResource request : all) {
            Map<String, Object> spec = map(request.getAdditionalProperties().get("spec"));
            if (!MarketClusterClient.PROVISIONING_CLASS.equals(spec.get("provisioningClassName"))) {
                continue;
            }
            String namespace = request.getMetadata().getNamespace();
            OwnerReference workloadRef = owner(request, "Workload");
            if (workloadRef == null) {
                continue;
            }
            GenericKubernetesResource workload = read(namespace, workloadRef.getApiVersion(), "Workload", workloadRef.getName());
            if (workload == null) {
                continue;
            }
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
        for (GenericKubernetesResource workload : workloads.getStore().list()) {
            OwnerReference jobRef = controller(workload);
            String namespace = workload.getMetadata().getNamespace();
            if (jobRef == null || byJob.containsKey(namespace + "/" + jobRef.getKind() + "/" + jobRef.getName())) {
                continue;
            }
            if (betweenAttempts(workload)) {
                // Kueue deletes an attempt's request just before it files the next: a pass that reads the caches
                // between the two still sees the job, so its open market request is not withdrawn.
                Map<String, String> labels = labels(namespace, jobRef);
                out.add(new ObservedJob(new ObjectRef(jobRef.getApiVersion(), jobRef.getKind(), namespace, jobRef.getName(),
                        jobRef.getUid()), null, 0, labels.get(MarketClusterClient.LIMIT_PRICE_LABEL),
                        labels.get(MarketClusterClient.PRIORITY_LABEL), false, List.of(), false));
                continue;
            }
            if (!waitsForQuota(workload)) {
                continue;
            }
            Map<String, Object> spec = map(workload.getAdditionalProperties().get("spec"));
            int gpus = 0;
            String nodeClass = null;
            for (Object o : list(spec.get("podSets"))) {
                Map<String, Object> podSet = map(o);
                Map<String, Object> podSpec = map(map(podSet.get("template")).get("spec"));
                int count = podSet.get("count") instanceof Number n ? n.intValue() : 1;
                for (Object c : list(podSpec.get("containers"))) {
                    gpus += count * gpus(map(map(c).get("resources")));
                }
                Object selected = map(podSpec.get("nodeSelector")).get(MarketClusterClient.NODE_CLASS_LABEL);
                if (nodeClass == null && selected != null) {
                    nodeClass = selected.toString();
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
     * Kueue holds the Workload back for quota: not admitted, not finished, active, and its QuotaReserved=False
     * names insufficient quota (the max cluster size is the GPU flavors' quota).
     */
    /**
     * Whether the Workload is active, not finished, and its market admission check waits for a request ({@code Retry}
     * after a failed attempt, {@code Pending} until one is filed) after a first attempt.
     */
    static boolean betweenAttempts(GenericKubernetesResource workload) {
        Map<String, Object> status = map(workload.getAdditionalProperties().get("status"));
        if (finished(workload) || Boolean.FALSE.equals(map(workload.getAdditionalProperties().get("spec")).get("active"))) {
            return false;
        }
        for (Object o : list(status.get("admissionChecks"))) {
            Map<String, Object> check = map(o);
            if (PlatformObjectManifests.CHECK.equals(check.get("name"))) {
                Object state = check.get("state");
                boolean retried = check.get("retryCount") instanceof Number n && n.longValue() > 0;
                return "Retry".equals(state) || ("Pending".equals(state) && retried);
            }
        }
        return false;
    }

    static boolean waitsForQuota(GenericKubernetesResource workload) {
        Map<String, Object> status = map(workload.getAdditionalProperties().get("status"));
        if (!map(status.get("admission")).isEmpty() || finished(workload)
                || Boolean.FALSE.equals(map(workload.getAdditionalProperties().get("spec")).get("active"))) {
            return false;
        }
        for (Object o : list(status.get("conditions"))) {
            Map<String, Object> c = map(o);
            if ("QuotaReserved".equals(c.get("type"))) {
                return "False".equals(c.get("status")) && String.valueOf(c.get("message")).contains("quota for " + GPU);
            }
        }
        return false;
    }

    /** The GPUs a container's resources ask (limits, else requests), as the Workload's JSON holds them. */
    private static int gpus(Map<String, Object> resources) {
        Object q = map(resources.get("limits")).get(GPU);
        if (q == null) {
            q = map(resources.get("requests")).get(GPU);
        }
        return q == null ? 0 : new Quantity(q.toString()).getNumericalAmount().intValue();
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
    private int gpus(String namespace, Map<String, Object> spec) {
        int total = 0;
        for (Object o : list(spec.get("podSets"))) {
            Map<String, Object> podSet = map(o);
            PodTemplate template = template(namespace, podSet);
            int count = podSet.get("count") instanceof Number n ? n.intValue() : 1;
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

    private String nodeClass(String namespace, Map<String, Object> spec) {
        for (Object o : list(spec.get("podSets"))) {
            PodTemplate template = template(namespace, map(o));
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

    private PodTemplate template(String namespace, Map<String, Object> podSet) {
        Object name = map(podSet.get("podTemplateRef")).get("name");
        if (name == null) {
            return null;
        }
        PodTemplate cached = templates.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name.toString()));
        // Kueue writes the templates before the request, but their informer may not have seen them yet.
        return cached != null ? cached : client.v1().podTemplates().inNamespace(namespace).withName(name.toString()).get();
    }

    static ObservedRequest observed(GenericKubernetesResource request) {
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

    static List<Condition> conditions(GenericKubernetesResource request) {
        List<Condition> out = new ArrayList<>();
        for (Object o : list(map(request.getAdditionalProperties().get("status")).get("conditions"))) {
            Map<String, Object> c = map(o);
            out.add(new Condition(text(c.get("type")), text(c.get("status")), text(c.get("reason")), text(c.get("message")),
                    instant(c.get("lastTransitionTime"))));
        }
        return out;
    }

    private static boolean finished(GenericKubernetesResource workload) {
        for (Object o : list(map(workload.getAdditionalProperties().get("status")).get("conditions"))) {
            Map<String, Object> c = map(o);
            if ("Finished".equals(c.get("type")) && "True".equals(c.get("status"))) {
                return true;
            }
        }
        return false;
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

    private static String text(Object o) {
        return o == null ? null : o.toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    static List<Object> list(Object o) {
        return o instanceof List<?> l ? new ArrayList<>(l) : List.of();
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
