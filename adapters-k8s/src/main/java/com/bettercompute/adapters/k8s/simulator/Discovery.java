package com.bettercompute.adapters.k8s.simulator;

/**
 * The discovery documents and {@code /version} the CRUD mock does not serve and {@code kubectl} insists
 * on (legacy, non-aggregated discovery: {@code kubectl} falls back to it when {@code /api} answers plain
 * JSON). Only the groups listed here are announced, and each has its resource list.
 */
final class Discovery {
    private Discovery() {}

    static final String VERSION = """
            {"major":"1","minor":"32","gitVersion":"v1.32.0-bettercompute-sim","gitCommit":"0000000000000000000000000000000000000000",\
            "gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.23","compiler":"gc","platform":"linux/amd64"}""";

    static final String API = """
            {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}""";

    static final String APIS = """
            {"kind":"APIGroupList","apiVersion":"v1","groups":[\
            {"name":"rbac.authorization.k8s.io","versions":[{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}],\
            "preferredVersion":{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}},\
            {"name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],\
            "preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"}}]}""";

    private static final String RW = "[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"update\",\"watch\"]";

    static final String CORE_V1 = "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":["
            + resource("namespaces", "namespace", false, "Namespace", RW, "[\"ns\"]") + ","
            + resource("nodes", "node", false, "Node", RW, "[\"no\"]") + ","
            + resource("pods", "pod", true, "Pod", RW, "[\"po\"]") + ","
            + resource("services", "service", true, "Service", RW, "[\"svc\"]") + ","
            + resource("configmaps", "configmap", true, "ConfigMap", RW, "[\"cm\"]") + ","
            + resource("secrets", "secret", true, "Secret", RW, "[]") + ","
            + resource("events", "event", true, "Event", RW, "[\"ev\"]") + ","
            + resource("serviceaccounts", "serviceaccount", true, "ServiceAccount", RW, "[\"sa\"]") + ","
            + "{\"name\":\"serviceaccounts/token\",\"singularName\":\"\",\"namespaced\":true,\"group\":\"authentication.k8s.io\","
            + "\"version\":\"v1\",\"kind\":\"TokenRequest\",\"verbs\":[\"create\"]}"
            + "]}";

    static final String RBAC_V1 = "{\"kind\":\"APIResourceList\",\"groupVersion\":\"rbac.authorization.k8s.io/v1\",\"resources\":["
            + resource("clusterrolebindings", "clusterrolebinding", false, "ClusterRoleBinding", RW, "[]") + ","
            + resource("clusterroles", "clusterrole", false, "ClusterRole", RW, "[]") + ","
            + resource("rolebindings", "rolebinding", true, "RoleBinding", RW, "[]") + ","
            + resource("roles", "role", true, "Role", RW, "[]")
            + "]}";

    static final String AUTHENTICATION_V1 = "{\"kind\":\"APIResourceList\",\"groupVersion\":\"authentication.k8s.io/v1\",\"resources\":["
            + resource("tokenreviews", "tokenreview", false, "TokenReview", "[\"create\"]", "[]")
            + "]}";

    private static String resource(String name, String singular, boolean namespaced, String kind, String verbs, String shortNames) {
        return "{\"name\":\"" + name + "\",\"singularName\":\"" + singular + "\",\"namespaced\":" + namespaced
                + ",\"kind\":\"" + kind + "\",\"verbs\":" + verbs + ",\"shortNames\":" + shortNames + "}";
    }
}
