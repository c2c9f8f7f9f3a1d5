package com.bettercompute.adapters.k8s.simulator;

import java.util.List;
import java.util.Set;

/**
 * A resource path of the Kubernetes API read as kube-apiserver reads it for authorization and admission:
 * {@code /api/v1/…} or {@code /apis/<group>/<version>/…}, then {@code namespaces/<ns>/} for a namespaced
 * resource, the resource, the object's name and a subresource. A Namespace's own path names it as both
 * the object and the namespace, and {@code namespaces/<ns>/status} or {@code /finalize} is the Namespace's
 * subresource. {@code name} is null for a collection; {@code namespace} null for a cluster-scoped object.
 */
record ApiPath(String group, String version, String resource, String subResource, String namespace, String name, String objectPath) {
    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    /** The path read, or null when it names no resource (discovery, a group's root, anything else). */
    static ApiPath of(String path) {
        String[] parts = path.replaceAll("/+$", "").split("/");
        String group;
        String version;
        int start;
        if (parts.length > 3 && "api".equals(parts[1])) {
            group = "";
            version = parts[2];
            start = 3;
        } else if (parts.length > 4 && "apis".equals(parts[1])) {
            group = parts[2];
            version = parts[3];
            start = 4;
        } else {
            return null;
        }
        String prefix = String.join("/", List.of(parts).subList(0, start));
        List<String> rest = List.of(parts).subList(start, parts.length);
        String namespace = null;
        if ("namespaces".equals(rest.get(0)) && rest.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
            namespace = rest.get(1);
            prefix = prefix + "/namespaces/" + namespace;
            rest = rest.subList(2, rest.size());
        }
        String resource = rest.get(0);
        String name = rest.size() > 1 ? rest.get(1) : null;
        String subResource = rest.size() > 2 ? String.join("/", rest.subList(2, rest.size())) : null;
        if (group.isEmpty() && "namespaces".equals(resource)) {
            namespace = name;
        }
        String objectPath = name == null ? null : prefix + "/" + resource + "/" + name;
        return new ApiPath(group, version, resource, subResource, namespace, name, objectPath);
    }

    /** Webhook configurations are never sent to webhooks, so that a broken webhook can always be removed. */
    boolean isWebhookConfiguration() {
        return "admissionregistration.k8s.io".equals(group)
                && ("mutatingwebhookconfigurations".equals(resource) || "validatingwebhookconfigurations".equals(resource));
    }
}
