package com.bettercompute.domain.access;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class AccessPolicyTest {
    static final Map<String, String> AUTOPILOT_A = Map.of("mode", "autopilot", "location", "us-central1-a", "poolId", "pool_x",
            "providerAccountId", "acct", "projectId", "prj_1");
    static final Resource CLUSTER = Resource.cluster("acme", "kcl_1", AUTOPILOT_A);
    static final Resource NOT_FOUND = Resource.cluster("acme", null, Map.of());
    static final Resource TENANT = Resource.tenant("acme");

    static RoleBinding tenant(String tenant, Role role, Map<String, List<String>> where) {
        return new RoleBinding("p", tenant, null, role, where);
    }

    static RoleBinding cluster(String id, Role role) {
        return new RoleBinding("p", null, id, role, Map.of());
    }

    static List<Arguments> cases() {
        return List.of(
                arguments("no binding", List.of(), false, Action.READ, CLUSTER, false),
                arguments("viewer reads", List.of(tenant("acme", Role.KUBERNETES_VIEWER, Map.of())), false, Action.READ, CLUSTER, true),
                arguments("viewer connects", List.of(tenant("acme", Role.KUBERNETES_VIEWER, Map.of())), false, Action.CONNECT, CLUSTER, true),
                arguments("viewer may not update", List.of(tenant("acme", Role.KUBERNETES_VIEWER, Map.of())), false, Action.UPDATE, CLUSTER, false),
                arguments("editor creates", List.of(tenant("acme", Role.KUBERNETES_EDITOR, Map.of())), false, Action.CREATE, CLUSTER, true),
                arguments("editor may not delete", List.of(tenant("acme", Role.KUBERNETES_EDITOR, Map.of())), false, Action.DELETE, CLUSTER, false),
                arguments("admin deletes", List.of(tenant("acme", Role.KUBERNETES_ADMIN, Map.of())), false, Action.DELETE, CLUSTER, true),
                arguments("another tenant's binding", List.of(tenant("globex", Role.KUBERNETES_ADMIN, Map.of())), false, Action.READ, CLUSTER, false),
                arguments("conditions that hold", List.of(tenant("acme", Role.KUBERNETES_ADMIN, Map.of("mode", List.of("autopilot"), "location", List.of("us-central1", "us-central1-a")))), false, Action.READ, CLUSTER, true),
                arguments("a condition that fails", List.of(tenant("acme", Role.KUBERNETES_ADMIN, Map.of("mode", List.of("standard")))), false, Action.READ, CLUSTER, false),
                arguments("a condition on an attribute the cluster lacks", List.of(tenant("acme", Role.KUBERNETES_ADMIN, Map.of("location", List.of("x")))), false, Action.READ, NOT_FOUND, false),
                arguments("a conditional binding reaches the tenant", List.of(tenant("acme", Role.KUBERNETES_VIEWER, Map.of("mode", List.of("standard")))), false, Action.READ, TENANT, true),
                arguments("a binding on the cluster", List.of(cluster("kcl_1", Role.KUBERNETES_VIEWER)), false, Action.READ, CLUSTER, true),
                arguments("a binding on another cluster", List.of(cluster("kcl_2", Role.KUBERNETES_ADMIN)), false, Action.READ, CLUSTER, false),
                arguments("a cluster binding does not reach the tenant", List.of(cluster("kcl_1", Role.KUBERNETES_ADMIN)), false, Action.READ, TENANT, false),
                arguments("the owner may do anything", List.of(), true, Action.DELETE, CLUSTER, true),
                arguments("ownership does not reach a cluster not found", List.of(), true, Action.READ, NOT_FOUND, false));
    }

    @ParameterizedTest(name = "{0}: {5}")
    @MethodSource("cases")
    void decides(String why, List<RoleBinding> bindings, boolean owner, Action action, Resource resource, boolean allowed) {
        assertThat(AccessPolicy.allows(bindings, owner, action, resource)).isEqualTo(allowed);
    }
}
