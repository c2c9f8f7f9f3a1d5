package com.bettercompute.adapters.k8s.simulator;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Whether a registered admission webhook is called for a request, as kube-apiserver decides it
 * (admissionregistration.k8s.io/v1): one of its {@code rules} matches the request's group, version,
 * resource (with {@code *}, {@code &#42;/&#42;}, {@code pods/&#42;} (pods and its subresources, as kube-apiserver reads it),
 * {@code &#42;/status} for subresources),
 * operation and {@code scope}; its {@code namespaceSelector} matches the labels of the request's
 * namespace (of the Namespace itself for a Namespace; skipped for other cluster-scoped objects); its
 * {@code objectSelector} matches the labels of the new or the old object. {@code matchPolicy:
 * Equivalent} finds no equivalent resources here (the simulator serves one version of each), and
 * {@code matchConditions} (CEL) are not evaluated: such a webhook is called.
 */
final class WebhookRules {
    private WebhookRules() {}

    /** What a request is, as admission sees it. */
    record Request(String operation, String group, String version, String resource, String subResource, String namespace,
                   Map<String, Object> object, Map<String, Object> oldObject) {
        Request withObject(Map<String, Object> newObject) {
            return new Request(operation, group, version, resource, subResource, namespace, newObject, oldObject);
        }

        boolean isNamespaceObject() {
            return group.isEmpty() && "namespaces".equals(resource);
        }
    }

    /**
     * Whether the webhook (a map as in the configuration's {@code webhooks}) is called for the request;
     * {@code namespaceLabels} gives a namespace's labels (empty when it has none or does not exist).
     */
    static boolean matches(Map<String, Object> webhook, Request request, Function<String, Map<String, Object>> namespaceLabels) {
        return anyRule(webhook, request)
                && namespaceSelected(Obj.map(webhook.get("namespaceSelector")), request, namespaceLabels)
                && objectSelected(Obj.map(webhook.get("objectSelector")), request);
    }

    /** Whether one of the webhook's rules names the request's group, version, resource, operation and scope. */
    static boolean anyRule(Map<String, Object> webhook, Request request) {
        for (Object r : Obj.list(webhook.get("rules"))) {
            Map<String, Object> rule = Obj.map(r);
            if (listed(rule.get("operations"), request.operation())
                    && listed(rule.get("apiGroups"), request.group())
                    && listed(rule.get("apiVersions"), request.version())
                    && resourceListed(rule.get("resources"), request.resource(), request.subResource())
                    && scoped(rule.get("scope"), request)) {
                return true;
            }
        }
        return false;
    }

    private static boolean listed(Object values, String value) {
        for (Object v : Obj.list(values)) {
            if ("*".equals(v) || Objects.equals(v, value)) {
                return true;
            }
        }
        return false;
    }

    /** {@code *}: every resource, no subresource; {@code &#42;/&#42;}: all of both; {@code r/&#42;}: r and its subresources; {@code &#42;/s}: s of any. */
    private static boolean resourceListed(Object values, String resource, String subResource) {
        boolean sub = subResource != null && !subResource.isEmpty();
        for (Object v : Obj.list(values)) {
            String entry = String.valueOf(v);
            int slash = entry.indexOf('/');
            String res = slash < 0 ? entry : entry.substring(0, slash);
            String subEntry = slash < 0 ? null : entry.substring(slash + 1);
            boolean resourceOk = "*".equals(res) || res.equals(resource);
            boolean subOk = subEntry == null ? !sub : "*".equals(subEntry) || subEntry.equals(sub ? subResource : "");
            if (resourceOk && subOk) {
                return true;
            }
        }
        return false;
    }

    /** {@code Namespaced}: namespaced objects only; {@code Cluster}: cluster-scoped ones, Namespaces among them; else both. */
    private static boolean scoped(Object scope, Request request) {
        boolean clusterScoped = request.isNamespaceObject() || request.namespace() == null || request.namespace().isEmpty();
        if ("Namespaced".equals(scope)) {
            return !clusterScoped;
        }
        if ("Cluster".equals(scope)) {
            return clusterScoped;
        }
        return true;
    }

    private static boolean namespaceSelected(Map<String, Object> selector, Request request, Function<String, Map<String, Object>> namespaceLabels) {
        if (selector.isEmpty()) {
            return true;
        }
        if (request.isNamespaceObject()) {
            return selected(selector, Obj.labels(request.object() != null ? request.object() : Obj.map(request.oldObject())));
        }
        if (request.namespace() == null || request.namespace().isEmpty()) {
            // A cluster-scoped object lives in no namespace: the namespace selector does not apply to it.
            return true;
        }
        return selected(selector, namespaceLabels.apply(request.namespace()));
    }

    /** As kube-apiserver: either the new or the old object's labels may match. */
    private static boolean objectSelected(Map<String, Object> selector, Request request) {
        if (selector.isEmpty()) {
            return true;
        }
        return (request.object() != null && selected(selector, Obj.labels(request.object())))
                || (request.oldObject() != null && selected(selector, Obj.labels(request.oldObject())));
    }

    /** A metav1.LabelSelector: every matchLabels pair and every matchExpressions requirement holds. */
    static boolean selected(Map<String, Object> selector, Map<String, Object> labels) {
        for (Map.Entry<String, Object> wanted : Obj.map(selector.get("matchLabels")).entrySet()) {
            Object have = labels.get(wanted.getKey());
            if (have == null || !String.valueOf(wanted.getValue()).equals(String.valueOf(have))) {
                return false;
            }
        }
        for (Object e : Obj.list(selector.get("matchExpressions"))) {
            Map<String, Object> expression = Obj.map(e);
            String key = String.valueOf(expression.get("key"));
            Object value = labels.get(key);
            List<String> values = Obj.list(expression.get("values")).stream().map(String::valueOf).toList();
            boolean holds = switch (String.valueOf(expression.get("operator"))) {
                case "In" -> value != null && values.contains(String.valueOf(value));
                case "NotIn" -> value == null || !values.contains(String.valueOf(value));
                case "Exists" -> labels.containsKey(key);
                case "DoesNotExist" -> !labels.containsKey(key);
                default -> false;
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }
}
