package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The platform's Kueue objects of one cluster as manifests (docs/decisions/market-in-cluster.md): one ResourceFlavor per node class plus {@code cpu} for the CPU worker, the ClusterQueue
 * {@code market}, the LocalQueue {@code default} in namespace {@code default} (Kueue's default queue for
 * jobs that name none), the AdmissionCheck and ProvisioningRequestConfig {@code market}, and the
 * WorkloadPriorityClasses. Kueue's {@code v1beta1} API, which every Kueue release up to 0.20 serves. With the
 * platform's admission webhooks served, the Mutating- and ValidatingWebhookConfiguration
 * {@value #WEBHOOKS} that point the cluster's API server at them.
 */
final class PlatformObjectManifests {
    static final String KUEUE = "kueue.x-k8s.io/v1beta1";
    static final String QUEUE = "market";
    static final String CHECK = "market";
    static final String LOCAL_QUEUE = "default";
    static final String LOCAL_QUEUE_NAMESPACE = "default";
    static final String CPU_FLAVOR = "cpu";
    static final String GPU = "nvidia.com/gpu";
    /** CPU and memory are not what the market limits: the quota only has to cover them. */
    static final String UNLIMITED_CPU = "100000";
    static final String UNLIMITED_MEMORY = "100000Ti";
    static final Map<String, Integer> PRIORITIES = orderedPriorities();

    private PlatformObjectManifests() {
    }

    private static Map<String, Integer> orderedPriorities() {
        // A job without the label has priority 0, below low, as the spec says.
        Map<String, Integer> p = new LinkedHashMap<>();
        p.put("low", 100);
        p.put("normal", 200);
        p.put("high", 300);
        return p;
    }

    /** Every object, in the order they must be created (a queue after its flavors and check). */
    static List<GenericKubernetesResource> all(PlatformObjects objects) {
        List<GenericKubernetesResource> out = new ArrayList<>();
        out.add(flavor(CPU_FLAVOR, Map.of(com.bettercompute.domain.cluster.CpuWorker.ROLE_LABEL, ""), false));
        for (NodeClass c : objects.nodeClasses()) {
            out.add(flavor(flavorName(c.name()), c.nodeLabels(), true));
        }
        out.add(provisioningRequestConfig());
        out.add(admissionCheck());
        out.add(clusterQueue(objects));
        out.add(localQueue());
        PRIORITIES.forEach((name, value) -> out.add(priorityClass(name, value)));
        if (objects.webhooks() != null) {
            out.add(mutatingWebhooks(objects.webhooks()));
            out.add(validatingWebhooks(objects.webhooks()));
        }
        return out;
    }

    // ---------------------------------------------------------------- launch admission (docs/decisions/admission.md)

    static final String ADMISSION = "admissionregistration.k8s.io/v1";
    /** The name of both webhook configurations. */
    static final String WEBHOOKS = "better-compute-market";
    static final String WORKLOADS_WEBHOOK = "workloads.admission.nationalcompute.com";
    static final String STATION_WEBHOOK = "station.admission.nationalcompute.com";
    /** Longer than the validating webhook takes at p99 by three orders of magnitude, shorter than kubectl waits. */
    static final int WEBHOOK_TIMEOUT_SECONDS = 5;
    /** Namespaces whose pods no market rule binds, so the cluster's own machinery never waits on the platform. */
    static final List<String> SYSTEM_NAMESPACES = List.of("kube-system", "kube-public", "kube-node-lease", "kueue-system",
            "gke-managed-system", "gmp-system");
    /** The platform's Kueue objects a tenant may not change (StationOwned); the label on each decides. */
    static final List<String> KUEUE_OBJECTS = List.of("clusterqueues", "resourceflavors", "admissionchecks",
            "workloadpriorityclasses", "provisioningrequestconfigs", "localqueues");

    static GenericKubernetesResource mutatingWebhooks(AdmissionEndpoints.Webhooks webhooks) {
        Map<String, Object> webhook = workloadWebhook(webhooks.mutateUrl(), webhooks.caBundlePem());
        webhook.put("reinvocationPolicy", "Never");
        return webhookConfiguration("MutatingWebhookConfiguration", List.of(webhook));
    }

    static GenericKubernetesResource validatingWebhooks(AdmissionEndpoints.Webhooks webhooks) {
        Map<String, Object> station = new LinkedHashMap<>();
        station.put("name", STATION_WEBHOOK);
        station.put("clientConfig", clientConfig(webhooks.validateUrl(), webhooks.caBundlePem()));
        station.put("rules", List.of(rule(KUEUE_GROUP, List.of("*"), KUEUE_OBJECTS, List.of("UPDATE", "DELETE"), "*")));
        // the API server matches an UPDATE when the old or the new object carries the label: removing it is caught
        station.put("objectSelector", Map.of("matchLabels", PlatformObjectMeta.OWNED));
        // Kueue's own finalizer writes must not wait on the platform; an edit that slips through while the
        // platform is unreachable is undone at the next keep pass
        station.put("failurePolicy", "Ignore");
        station.put("sideEffects", "None");
        station.put("admissionReviewVersions", List.of("v1"));
        station.put("timeoutSeconds", WEBHOOK_TIMEOUT_SECONDS);
        return webhookConfiguration("ValidatingWebhookConfiguration",
                List.of(workloadWebhook(webhooks.validateUrl(), webhooks.caBundlePem()), station));
    }

    private static final String KUEUE_GROUP = "kueue.x-k8s.io";

    /**
     * Jobs, JobSets, MPIJobs, Deployments, StatefulSets, ReplicaSets and pods when they are created; fail closed: no
     * GPU workload passes unchecked.
     */
    private static Map<String, Object> workloadWebhook(String url, String caPem) {
        List<String> create = List.of("CREATE");
        Map<String, Object> webhook = webhook(WORKLOADS_WEBHOOK, url, caPem, List.of(
                rule("batch", List.of("v1"), List.of("jobs"), create, "Namespaced"),
                rule("jobset.x-k8s.io", List.of("*"), List.of("jobsets"), create, "Namespaced"),
                rule("kubeflow.org", List.of("*"), List.of("mpijobs"), create, "Namespaced"),
                rule("apps", List.of("v1"), List.of("deployments", "statefulsets", "replicasets"), create, "Namespaced"),
                rule("", List.of("v1"), List.of("pods"), create, "Namespaced")));
        webhook.put("namespaceSelector", Map.of("matchExpressions", List.of(Map.of(
                "key", "kubernetes.io/metadata.name", "operator", "NotIn", "values", SYSTEM_NAMESPACES))));
        return webhook;
    }

    /**
     * A webhook of the platform's that fails closed (its selectors and conditions are added by the caller): called at
     * {@code url}, trusted by {@code caPem}, for {@code rules}, with no side effects, within {@link #WEBHOOK_TIMEOUT_SECONDS}.
     */
    static Map<String, Object> webhook(String name, String url, String caPem, List<Map<String, Object>> rules) {
        Map<String, Object> webhook = new LinkedHashMap<>();
        webhook.put("name", name);
        webhook.put("clientConfig", clientConfig(url, caPem));
        webhook.put("rules", rules);
        webhook.put("failurePolicy", "Fail");
        webhook.put("matchPolicy", "Equivalent");
        webhook.put("sideEffects", "None");
        webhook.put("admissionReviewVersions", List.of("v1"));
        webhook.put("timeoutSeconds", WEBHOOK_TIMEOUT_SECONDS);
        return webhook;
    }

    static Map<String, Object> clientConfig(String url, String caPem) {
        return Map.of("url", url, "caBundle",
                java.util.Base64.getEncoder().encodeToString(caPem.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    }

    static Map<String, Object> rule(String group, List<String> versions, List<String> resources,
                                            List<String> operations, String scope) {
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("apiGroups", List.of(group));
        rule.put("apiVersions", versions);
        rule.put("resources", resources);
        rule.put("operations", operations);
        rule.put("scope", scope);
        return rule;
    }

    private static GenericKubernetesResource webhookConfiguration(String kind, List<Map<String, Object>> webhooks) {
        return webhookConfiguration(kind, WEBHOOKS, webhooks);
    }

    static GenericKubernetesResource webhookConfiguration(String kind, String name, List<Map<String, Object>> webhooks) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(ADMISSION);
        r.setKind(kind);
        r.setMetadata(PlatformObjectMeta.owned(name, null));
        // a webhook configuration has no spec: its webhooks are top-level
        r.setAdditionalProperty("webhooks", webhooks);
        return r;
    }

    /** A flavor's name: the node class, lower case, as a DNS label. */
    static String flavorName(String nodeClass) {
        String name = nodeClass.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
        return "gpu-" + name;
    }

    static GenericKubernetesResource flavor(String name, Map<String, String> nodeLabels, boolean gpu) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("nodeLabels", new LinkedHashMap<>(nodeLabels));
        if (gpu) {
            spec.put("nodeTaints", List.of(Map.of("key", MarketClusterClient.GPU_WORKER_TAINT, "value", "true",
                    "effect", "NoSchedule")));
            // Kueue adds the flavor's tolerations to the admitted pods: the GPU worker taint's toleration is
            // injected on admission, as the spec promises.
            spec.put("tolerations", List.of(Map.of("key", MarketClusterClient.GPU_WORKER_TAINT, "operator", "Equal",
                    "value", "true", "effect", "NoSchedule")));
        }
        return resource("ResourceFlavor", name, null, spec);
    }

    static GenericKubernetesResource clusterQueue(PlatformObjects objects) {
        List<Object> flavors = new ArrayList<>();
        // CPU first: a pod asking no GPUs fits it and passes without the market's check; a GPU pod does not
        // fit its zero GPU quota and goes on to the GPU flavors.
        flavors.add(flavorQuota(CPU_FLAVOR, 0));
        List<String> gpuFlavors = new ArrayList<>();
        for (NodeClass c : objects.nodeClasses()) {
            flavors.add(flavorQuota(flavorName(c.name()), objects.maxClusterGpus()));
            gpuFlavors.add(flavorName(c.name()));
        }
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("coveredResources", List.of("cpu", "memory", GPU));
        group.put("flavors", flavors);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("namespaceSelector", Map.of());
        spec.put("queueingStrategy", "BestEffortFIFO");
        spec.put("resourceGroups", List.of(group));
        spec.put("admissionChecksStrategy", Map.of("admissionChecks", List.of(
                Map.of("name", CHECK, "onFlavors", gpuFlavors))));
        return resource("ClusterQueue", QUEUE, null, spec);
    }

    private static Map<String, Object> flavorQuota(String flavor, long gpus) {
        return Map.of("name", flavor, "resources", List.of(
                Map.of("name", "cpu", "nominalQuota", UNLIMITED_CPU),
                Map.of("name", "memory", "nominalQuota", UNLIMITED_MEMORY),
                Map.of("name", GPU, "nominalQuota", Long.toString(gpus))));
    }

    static GenericKubernetesResource localQueue() {
        return resource("LocalQueue", LOCAL_QUEUE, LOCAL_QUEUE_NAMESPACE, Map.of("clusterQueue", QUEUE));
    }

    static GenericKubernetesResource admissionCheck() {
        return resource("AdmissionCheck", CHECK, null, Map.of(
                "controllerName", "kueue.x-k8s.io/provisioning-request",
                "parameters", Map.of("apiGroup", "kueue.x-k8s.io", "kind", "ProvisioningRequestConfig", "name", CHECK)));
    }

    static GenericKubernetesResource provisioningRequestConfig() {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("provisioningClassName", MarketClusterClient.PROVISIONING_CLASS);
        spec.put("managedResources", List.of(GPU));
        // Kueue pins the admitted pods to the granted nodes by the request label the market writes into
        // the request's provisioningClassDetails; a request seated on the base load block carries its block
        // node's pool instead (several requests share a block node, so it cannot carry their labels). Kueue
        // adds a selector only for a detail the request has, so each request gets exactly one.
        spec.put("podSetUpdates", Map.of("nodeSelector", List.of(
                Map.of("key", MarketClusterClient.REQUEST_LABEL,
                        "valueFromProvisioningClassDetail", MarketClusterClient.REQUEST_LABEL),
                Map.of("key", MarketClusterClient.NODE_POOL_LABEL,
                        "valueFromProvisioningClassDetail", MarketClusterClient.BLOCK_NODE_DETAIL))));
        // A failed attempt is always a market revocation (the platform is the only provisioner of the class and
        // writes Failed for nothing else), and a reclaim is never a failed job: the next attempt files at once,
        // however many came before. Kueue's defaults (60 s doubling to 30 min, deactivated after 3 retries) would
        // stop a job the market outbid a fourth time. docs/decisions/reclaims.md
        spec.put("retryStrategy", Map.of(
                "backoffLimitCount", RETRY_LIMIT,
                "backoffBaseSeconds", RETRY_BACKOFF_SECONDS,
                "backoffMaxSeconds", RETRY_BACKOFF_SECONDS));
        return resource("ProvisioningRequestConfig", CHECK, null, spec);
    }

    /** The largest retry count Kueue's {@code int32} field holds: at a reclaim a minute, thousands of years. */
    static final int RETRY_LIMIT = Integer.MAX_VALUE;
    /** Kueue's back-off before the next attempt, base and cap alike: within the market's next tick. */
    static final int RETRY_BACKOFF_SECONDS = 1;

    static GenericKubernetesResource priorityClass(String name, int value) {
        GenericKubernetesResource r = resource("WorkloadPriorityClass", name, null, null);
        // A WorkloadPriorityClass has no spec: its fields are top-level.
        r.setAdditionalProperty("value", value);
        r.setAdditionalProperty("description", "Orders this cluster's own jobs while its max cluster size binds.");
        return r;
    }

    private static GenericKubernetesResource resource(String kind, String name, String namespace, Map<String, Object> spec) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(KUEUE);
        r.setKind(kind);
        r.setMetadata(PlatformObjectMeta.owned(name, namespace));
        if (spec != null) {
            r.setAdditionalProperty("spec", spec);
        }
        return r;
    }
}
