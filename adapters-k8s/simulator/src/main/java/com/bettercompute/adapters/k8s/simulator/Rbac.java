package com.bettercompute.adapters.k8s.simulator;

import java.util.List;
import java.util.Map;

/**
 * A coarse reading of RBAC: which of the built-in ClusterRoles ({@code view}, {@code edit}, {@code admin},
 * {@code cluster-admin}) are bound to the caller — by ClusterRoleBindings anywhere, by RoleBindings in the
 * namespace of the request — through a User, Group or ServiceAccount subject, as Kubernetes matches them.
 * The roles' rules are not evaluated: {@code view} reads everything but secrets, {@code edit} also writes
 * namespaced objects except roles and role bindings, {@code admin} those too, {@code cluster-admin} does
 * everything. Members of {@code system:masters} (the platform) skip RBAC, as on Kubernetes; every
 * authenticated caller reads the non-resource paths (discovery, version, OpenAPI), as
 * {@code system:discovery} grants. Enough to tell the roles apart, not RBAC as Kubernetes evaluates it.
 */
final class Rbac {
    private static final String API = "/apis/rbac.authorization.k8s.io/v1/";

    private Rbac() {}

    static boolean allows(ClusterStore store, Caller caller, RequestAttributes request) {
        if (caller.groups().contains(Caller.MASTERS)) {
            return true;
        }
        if (!request.resourceRequest()) {
            return request.verb().equals("get");
        }
        if (anyGrants(store.list(API + "clusterrolebindings"), null, caller, request)) {
            return true;
        }
        return !request.namespace().isEmpty()
                && anyGrants(store.list(API + "namespaces/" + request.namespace() + "/rolebindings"), request.namespace(), caller, request);
    }

    private static boolean anyGrants(List<Map<String, Object>> bindings, String namespace, Caller caller, RequestAttributes request) {
        for (Map<String, Object> binding : bindings) {
            if ("ClusterRole".equals(Obj.str(binding, "roleRef", "kind")) && binds(binding, namespace, caller)
                    && grants(Obj.str(binding, "roleRef", "name"), request)) {
                return true;
            }
        }
        return false;
    }

    /** Whether one of the binding's subjects is the caller: its user name, one of its groups, or its ServiceAccount. */
    private static boolean binds(Map<String, Object> binding, String bindingNamespace, Caller caller) {
        String[] account = caller.serviceAccount();
        for (Object item : Obj.list(binding.get("subjects"))) {
            Map<String, Object> subject = Obj.map(item);
            String kind = Obj.str(subject, "kind");
            String name = Obj.str(subject, "name");
            if (kind == null || name == null) {
                continue;
            }
            boolean match = switch (kind) {
                case "User" -> name.equals(caller.user());
                case "Group" -> caller.groups().contains(name);
                case "ServiceAccount" -> {
                    String namespace = Obj.str(subject, "namespace");
                    namespace = namespace == null ? bindingNamespace : namespace;
                    yield account != null && account[1].equals(name) && account[0].equals(namespace);
                }
                default -> false;
            };
            if (match) {
                return true;
            }
        }
        return false;
    }

    private static boolean grants(String role, RequestAttributes request) {
        if (role == null) {
            return false;
        }
        boolean namespacedObject = !request.namespace().isEmpty() && !request.resource().equals("namespaces");
        boolean rbacObject = request.resource().equals("roles") || request.resource().equals("rolebindings");
        return switch (role) {
            case "cluster-admin" -> true;
            case "admin" -> request.reads() || namespacedObject;
            case "edit" -> request.reads() || (namespacedObject && !rbacObject);
            case "view" -> request.reads() && !request.resource().equals("secrets");
            default -> false;
        };
    }
}
