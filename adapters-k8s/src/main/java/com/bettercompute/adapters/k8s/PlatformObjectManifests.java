package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The platform's Kueue objects of one cluster as manifests (docs/decisions.md, "The market inside tenant
 * clusters"): one ResourceFlavor per node class plus {@code cpu} for the CPU worker, the ClusterQueue
 * {@code market}, the LocalQueue {@code default} in namespace {@code default} (Kueue's default queue for
 * jobs that name none), the AdmissionCheck and ProvisioningRequestConfig {@code market}, and the
 * WorkloadPriorityClasses. Kueue's {@code v1beta1} API, which every Kueue release up to 0.20 serves.
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
        out.add(flavor(CPU_FLAVOR, Map.of("node-role.kubernetes.io/cpu", ""), false));
        for (NodeClass c : objects.nodeClasses()) {
            out.add(flavor(flavorName(c.name()), c.nodeLabels(), true));
        }
        out.add(provisioningRequestConfig());
        out.add(admissionCheck());
        out.add(clusterQueue(objects));
        out.add(localQueue());
        PRIORITIES.forEach((name, value) -> out.add(priorityClass(name, value)));
        return out;
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
        // the request's provisioningClassDetails.
        spec.put("podSetUpdates", Map.of("nodeSelector", List.of(Map.of(
                "key", MarketClusterClient.REQUEST_LABEL,
                "valueFromProvisioningClassDetail", MarketClusterClient.REQUEST_LABEL))));
        return resource("ProvisioningRequestConfig", CHECK, null, spec);
    }

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
        r.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace)
                .addToLabels(MarketClusterClient.OWNED_BY, "platform").build());
        if (spec != null) {
            r.setAdditionalProperty("spec", spec);
        }
        return r;
    }
}
