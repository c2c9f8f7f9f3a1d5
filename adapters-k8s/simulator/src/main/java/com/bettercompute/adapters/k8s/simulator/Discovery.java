package com.bettercompute.adapters.k8s.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The discovery documents and {@code /version} the CRUD mock does not serve and {@code kubectl} insists
 * on (legacy, non-aggregated discovery: {@code kubectl} falls back to it when {@code /api} answers plain
 * JSON). The built-in groups listed here, plus every group and version the cluster's
 * CustomResourceDefinitions serve — discovery follows the CRDs created through the API, as
 * kube-apiserver's does.
 */
final class Discovery {
    private Discovery() {}

    /** The Kubernetes version the simulated API server reports (its kubelets too, where a pool's version is not known). */
    static final String KUBERNETES_VERSION = "v1.32.0";

    private static final Pattern MAJOR_MINOR = Pattern.compile("v?([0-9]+)\\.([0-9]+)\\.[0-9A-Za-z.+-]+");

    /**
     * What {@code /version} answers for a cluster whose control plane runs {@code providerVersion} (GKE's form,
     * {@code 1.33.5-gke.1080000}: {@code gitVersion} {@code v1.33.5-gke.1080000}, as GKE's API servers say), or, when
     * that is null or not a version, the simulated server's own ({@value #KUBERNETES_VERSION}{@code -bettercompute-sim}).
     */
    static String version(String providerVersion) {
        String git = providerVersion != null && MAJOR_MINOR.matcher(providerVersion).matches()
                ? (providerVersion.startsWith("v") ? providerVersion : "v" + providerVersion)
                : KUBERNETES_VERSION + "-bettercompute-sim";
        Matcher m = MAJOR_MINOR.matcher(git);
        if (!m.matches()) {
            throw new IllegalStateException("not a Kubernetes version: " + git);
        }
        return """
                {"major":"%s","minor":"%s","gitVersion":"%s","gitCommit":"0000000000000000000000000000000000000000",\
                "gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.23","compiler":"gc","platform":"linux/amd64"}"""
                .formatted(m.group(1), m.group(2), git);
    }

    static final String API = """
            {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}""";

    private static final List<String> RW = List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    /** One resource of a group version, as an APIResourceList entry. */
    record Resource(String name, String singular, boolean namespaced, String kind, List<String> verbs, List<String> shortNames,
                    List<String> categories) {
        static Resource of(String name, String singular, boolean namespaced, String kind, String... shortNames) {
            return new Resource(name, singular, namespaced, kind, RW, List.of(shortNames), List.of());
        }

        static Resource sub(String name, String kind, List<String> verbs) {
            return new Resource(name, "", true, kind, verbs, List.of(), List.of());
        }

        Map<String, Object> json() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("name", name);
            out.put("singularName", singular);
            out.put("namespaced", namespaced);
            out.put("kind", kind);
            out.put("verbs", verbs);
            if (!shortNames.isEmpty()) {
                out.put("shortNames", shortNames);
            }
            if (!categories.isEmpty()) {
                out.put("categories", categories);
            }
            return out;
        }
    }

    /** The built-in group versions ({@code ""} is the core group), each with its resources. */
    private static final Map<String, List<Resource>> BUILT_IN = builtIn();

    private static Map<String, List<Resource>> builtIn() {
        Map<String, List<Resource>> out = new LinkedHashMap<>();
        out.put("v1", List.of(
                Resource.of("namespaces", "namespace", false, "Namespace", "ns"),
                Resource.of("nodes", "node", false, "Node", "no"),
                Resource.sub("nodes/status", "Node", List.of("get", "patch", "update")),
                Resource.of("pods", "pod", true, "Pod", "po"),
                Resource.sub("pods/status", "Pod", List.of("get", "patch", "update")),
                Resource.sub("pods/eviction", "Eviction", List.of("create")),
                Resource.of("podtemplates", "podtemplate", true, "PodTemplate"),
                Resource.of("services", "service", true, "Service", "svc"),
                Resource.of("configmaps", "configmap", true, "ConfigMap", "cm"),
                Resource.of("secrets", "secret", true, "Secret"),
                Resource.of("events", "event", true, "Event", "ev"),
                Resource.of("serviceaccounts", "serviceaccount", true, "ServiceAccount", "sa"),
                new Resource("serviceaccounts/token", "", true, "TokenRequest", List.of("create"), List.of(), List.of())));
        out.put("batch/v1", List.of(
                new Resource("jobs", "job", true, "Job", RW, List.of(), List.of("all")),
                Resource.sub("jobs/status", "Job", List.of("get", "patch", "update"))));
        out.put("apps/v1", List.of(
                Resource.of("deployments", "deployment", true, "Deployment", "deploy"),
                Resource.of("statefulsets", "statefulset", true, "StatefulSet", "sts"),
                Resource.of("daemonsets", "daemonset", true, "DaemonSet", "ds")));
        // Events in their newer form, the same objects as the core group's (EventForms)
        out.put(EventForms.GROUP_VERSION, List.of(Resource.of("events", "event", true, "Event", "ev")));
        out.put("policy/v1", List.of(Resource.of("poddisruptionbudgets", "poddisruptionbudget", true, "PodDisruptionBudget", "pdb")));
        out.put("apiextensions.k8s.io/v1", List.of(
                Resource.of("customresourcedefinitions", "customresourcedefinition", false, "CustomResourceDefinition", "crd", "crds")));
        out.put("rbac.authorization.k8s.io/v1", List.of(
                Resource.of("clusterrolebindings", "clusterrolebinding", false, "ClusterRoleBinding"),
                Resource.of("clusterroles", "clusterrole", false, "ClusterRole"),
                Resource.of("rolebindings", "rolebinding", true, "RoleBinding"),
                Resource.of("roles", "role", true, "Role")));
        out.put("admissionregistration.k8s.io/v1", List.of(
                Resource.of("mutatingwebhookconfigurations", "mutatingwebhookconfiguration", false, "MutatingWebhookConfiguration"),
                Resource.of("validatingwebhookconfigurations", "validatingwebhookconfiguration", false, "ValidatingWebhookConfiguration")));
        out.put("authentication.k8s.io/v1", List.of(
                new Resource("tokenreviews", "tokenreview", false, "TokenReview", List.of("create"), List.of(), List.of())));
        return out;
    }

    /** Group version → resources: the built-in ones, then the CRDs' served versions. */
    private static Map<String, List<Resource>> all(List<Map<String, Object>> crds) {
        Map<String, List<Resource>> out = new LinkedHashMap<>();
        BUILT_IN.forEach((gv, resources) -> out.put(gv, new ArrayList<>(resources)));
        Map<String, List<Resource>> custom = new TreeMap<>();
        for (Map<String, Object> crd : crds) {
            String group = Obj.str(crd, "spec", "group");
            Map<String, Object> names = Obj.map(Obj.at(crd, "spec", "names"));
            String plural = (String) names.get("plural");
            if (group == null || plural == null) {
                continue;
            }
            boolean namespaced = !"Cluster".equals(Obj.str(crd, "spec", "scope"));
            String kind = (String) names.get("kind");
            String singular = names.get("singular") == null ? kind.toLowerCase(java.util.Locale.ROOT) : (String) names.get("singular");
            List<String> shortNames = Obj.list(names.get("shortNames")).stream().map(Object::toString).toList();
            List<String> categories = Obj.list(names.get("categories")).stream().map(Object::toString).toList();
            for (Object v : Obj.list(Obj.at(crd, "spec", "versions"))) {
                Map<String, Object> version = Obj.map(v);
                if (Boolean.FALSE.equals(version.get("served"))) {
                    continue;
                }
                List<Resource> resources = custom.computeIfAbsent(group + "/" + version.get("name"), k -> new ArrayList<>());
                resources.add(new Resource(plural, singular, namespaced, kind, RW, shortNames, categories));
                if (Obj.at(version, "subresources", "status") != null) {
                    resources.add(new Resource(plural + "/status", "", namespaced, kind, List.of("get", "patch", "update"), List.of(), List.of()));
                }
            }
        }
        out.putAll(custom);
        return out;
    }

    /**
     * {@code /openapi/v3}: the index of the per-group-version documents, so {@code kubectl} learns the server
     * validates fields itself ({@code fieldValidation}) and skips its own schema validation, which would need
     * the protobuf {@code /openapi/v2} this simulator does not serve.
     */
    static Map<String, Object> openApiIndex(List<Map<String, Object>> crds) {
        Map<String, Object> paths = new LinkedHashMap<>();
        for (String gv : all(crds).keySet()) {
            String key = gv.contains("/") ? "apis/" + gv : "api/" + gv;
            paths.put(key, Map.of("serverRelativeURL", "/openapi/v3/" + key));
        }
        return Map.of("paths", paths);
    }

    /**
     * A group version's OpenAPI v3 document, reduced to what {@code kubectl} reads from it: each kind's PATCH
     * operation with its {@code fieldValidation} parameter. Null when nothing serves the group version.
     */
    static Map<String, Object> openApi(String groupVersion, List<Map<String, Object>> crds) {
        List<Resource> resources = all(crds).get(groupVersion);
        if (resources == null) {
            return null;
        }
        int slash = groupVersion.indexOf('/');
        String group = slash < 0 ? "" : groupVersion.substring(0, slash);
        String version = groupVersion.substring(slash + 1);
        String prefix = slash < 0 ? "/api/" + groupVersion : "/apis/" + groupVersion;
        Map<String, Object> paths = new LinkedHashMap<>();
        for (Resource r : resources) {
            if (r.name().contains("/")) {
                continue;
            }
            Map<String, Object> patch = new LinkedHashMap<>();
            patch.put("x-kubernetes-group-version-kind", Map.of("group", group, "version", version, "kind", r.kind()));
            patch.put("parameters", List.of(Map.of("name", "fieldValidation", "in", "query", "schema", Map.of("type", "string"))));
            patch.put("responses", Map.of("200", Map.of("description", "OK")));
            String path = prefix + (r.namespaced() ? "/namespaces/{namespace}/" : "/") + r.name() + "/{name}";
            paths.put(path, Map.of("patch", patch));
        }
        return Map.of("openapi", "3.0.0", "info", Map.of("title", "Kubernetes", "version", KUBERNETES_VERSION), "paths", paths,
                "components", Map.of("schemas", Map.of()));
    }

    /** {@code /apis}: every group with its versions, the first one listed preferred. */
    static Map<String, Object> groups(List<Map<String, Object>> crds) {
        Map<String, List<String>> versions = new LinkedHashMap<>();
        for (String gv : all(crds).keySet()) {
            int slash = gv.indexOf('/');
            if (slash > 0) {
                versions.computeIfAbsent(gv.substring(0, slash), g -> new ArrayList<>()).add(gv.substring(slash + 1));
            }
        }
        List<Object> groups = new ArrayList<>();
        versions.forEach((group, vs) -> {
            List<Object> listed = vs.stream().<Object>map(v -> Map.of("groupVersion", group + "/" + v, "version", v)).toList();
            groups.add(Map.of("name", group, "versions", listed, "preferredVersion", listed.get(0)));
        });
        return Map.of("kind", "APIGroupList", "apiVersion", "v1", "groups", groups);
    }

    /** The kind a group version's resource holds ({@code v1} for the core group), or null when nothing serves it. */
    static String kindOf(String groupVersion, String resource, List<Map<String, Object>> crds) {
        List<Resource> resources = all(crds).get(groupVersion);
        return resources == null ? null : resources.stream().filter(r -> r.name().equals(resource)).map(Resource::kind)
                .findFirst().orElse(null);
    }

    /** The APIResourceList of a group version ({@code v1} for the core group), or null when nothing serves it. */
    static Map<String, Object> resources(String groupVersion, List<Map<String, Object>> crds) {
        List<Resource> resources = all(crds).get(groupVersion);
        if (resources == null) {
            return null;
        }
        return Map.of("kind", "APIResourceList", "apiVersion", "v1", "groupVersion", groupVersion,
                "resources", resources.stream().map(Resource::json).toList());
    }
}
