package com.bettercompute.adapters.k8s.simulator;

/**
 * What a request asks, as kube-apiserver's request-info resolver reads its path: a resource request
 * (verb, API group, resource, subresource, namespace, name) or a non-resource one (verb and path).
 * RBAC decides on these, and the refusal message names them.
 */
record RequestAttributes(boolean resourceRequest, String verb, String group, String resource, String subresource,
                         String namespace, String name, String path) {
    /** The subresources of a namespace itself; anything else after {@code namespaces/<ns>/} is a resource in it. */
    private static final java.util.Set<String> NAMESPACE_SUBRESOURCES = java.util.Set.of("status", "finalize");

    static RequestAttributes of(String method, String path, String query) {
        String[] parts = path.replaceAll("^/+|/+$", "").split("/");
        int start;
        String group;
        if (parts.length >= 2 && parts[0].equals("api")) {
            start = 2;
            group = "";
        } else if (parts.length >= 3 && parts[0].equals("apis")) {
            start = 3;
            group = parts[1];
        } else {
            return new RequestAttributes(false, method.toLowerCase(java.util.Locale.ROOT), "", "", "", "", "", path);
        }
        java.util.List<String> rest = java.util.List.of(parts).subList(start, parts.length);
        if (rest.isEmpty()) {
            // a group version's discovery document
            return new RequestAttributes(false, method.toLowerCase(java.util.Locale.ROOT), "", "", "", "", "", path);
        }
        boolean watchPath = rest.get(0).equals("watch");
        if (watchPath) {
            rest = rest.subList(1, rest.size());
        }
        String namespace = "";
        if (!rest.isEmpty() && rest.get(0).equals("namespaces") && rest.size() > 1) {
            namespace = rest.get(1);
            if (rest.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
                rest = rest.subList(2, rest.size());
            }
        }
        String resource = rest.isEmpty() ? "" : rest.get(0);
        String name = rest.size() > 1 ? rest.get(1) : "";
        String subresource = rest.size() > 2 ? rest.get(2) : "";
        boolean watch = watchPath || query.matches(".*[?&]watch=(true|1)(&.*)?");
        String verb = switch (method) {
            case "GET", "HEAD" -> watch ? "watch" : name.isEmpty() ? "list" : "get";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
            default -> method.toLowerCase(java.util.Locale.ROOT);
        };
        return new RequestAttributes(true, verb, group, resource, subresource, namespace, name, path);
    }

    boolean reads() {
        return verb.equals("get") || verb.equals("list") || verb.equals("watch");
    }

    /**
     * kube-apiserver's 403 message for this request and user, word for word: e.g. {@code namespaces is
     * forbidden: User "nc:abc" cannot create resource "namespaces" in API group "" at the cluster scope}.
     */
    String forbiddenMessage(String user) {
        if (!resourceRequest) {
            return "forbidden: User \"" + user + "\" cannot " + verb + " path \"" + path + "\"";
        }
        String what = subresource.isEmpty() ? resource : resource + "/" + subresource;
        String scope = namespace.isEmpty() ? "at the cluster scope" : "in the namespace \"" + namespace + "\"";
        String qualified = group.isEmpty() ? resource : resource + "." + group;
        String object = name.isEmpty() ? qualified : qualified + " \"" + name + "\"";
        return object + " is forbidden: User \"" + user + "\" cannot " + verb + " resource \"" + what + "\" in API group \""
                + group + "\" " + scope;
    }
}
