package com.bettercompute.adapters.k8s.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kueue's CustomResourceDefinitions ({@code kueue.x-k8s.io/v1beta1}) as a Kueue installation leaves them in
 * every simulated cluster: names, scopes, short names and the status subresource as Kueue's manifests have
 * them; the schema accepts anything (the CRUD mock validates nothing anyway). The ProvisioningRequest CRD
 * is not among them: the platform installs it where the cluster does not serve it.
 */
final class KueueCrds {
    private KueueCrds() {}

    static final String GROUP = "kueue.x-k8s.io";
    static final String VERSION = "v1beta1";
    static final String API = "/apis/" + GROUP + "/" + VERSION;

    static List<Map<String, Object>> all() {
        return List.of(
                crd("Workload", "workloads", "workload", true, List.of("wl")),
                crd("ClusterQueue", "clusterqueues", "clusterqueue", false, List.of("cq")),
                crd("LocalQueue", "localqueues", "localqueue", true, List.of("queue", "queues", "lq")),
                crd("ResourceFlavor", "resourceflavors", "resourceflavor", false, List.of("flavor", "flavors", "rf")),
                crd("AdmissionCheck", "admissionchecks", "admissioncheck", false, List.of()),
                crd("ProvisioningRequestConfig", "provisioningrequestconfigs", "provisioningrequestconfig", false, List.of()),
                crd("WorkloadPriorityClass", "workloadpriorityclasses", "workloadpriorityclass", false, List.of()));
    }

    private static Map<String, Object> crd(String kind, String plural, String singular, boolean namespaced, List<String> shortNames) {
        Map<String, Object> names = new LinkedHashMap<>();
        names.put("kind", kind);
        names.put("listKind", kind + "List");
        names.put("plural", plural);
        names.put("singular", singular);
        names.put("categories", List.of("kueue"));
        if (!shortNames.isEmpty()) {
            names.put("shortNames", shortNames);
        }
        Map<String, Object> version = new LinkedHashMap<>();
        version.put("name", VERSION);
        version.put("served", true);
        version.put("storage", true);
        version.put("schema", Map.of("openAPIV3Schema", Map.of("type", "object", "x-kubernetes-preserve-unknown-fields", true)));
        version.put("subresources", Map.of("status", Map.of()));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("group", GROUP);
        spec.put("names", names);
        spec.put("scope", namespaced ? "Namespaced" : "Cluster");
        spec.put("versions", List.of(version));
        Map<String, Object> crd = new LinkedHashMap<>();
        crd.put("apiVersion", "apiextensions.k8s.io/v1");
        crd.put("kind", "CustomResourceDefinition");
        crd.put("metadata", Map.of("name", plural + "." + GROUP, "labels", Map.of("app.kubernetes.io/name", "kueue")));
        crd.put("spec", spec);
        return crd;
    }
}
