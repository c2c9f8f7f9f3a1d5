package com.bettercompute.adapters.k8s;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sign-in groups' ClusterRoleBindings {@link Fabric8TenantClusterClient#ensureSignInGroups} keeps in
 * fabric8's CRUD mock: each group bound to its built-in role, made idempotently, a binding someone pointed
 * at another role put back.
 */
class SignInGroupsOnFabric8MockTest {
    CrudMockCluster cluster;
    Fabric8TenantClusterClient client;

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8TenantClusterClient(5000);
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    ClusterRoleBinding binding(String name) {
        return cluster.admin().rbac().clusterRoleBindings().withName(name).get();
    }

    @ParameterizedTest(name = "{0}: group {1} -> ClusterRole {2}")
    @CsvSource({"nc-oidc-view, nc:view, view", "nc-oidc-edit, nc:edit, edit", "nc-oidc-admin, nc:admin, cluster-admin"})
    void binds_each_sign_in_group_to_its_built_in_role(String name, String group, String role) {
        client.ensureSignInGroups(cluster.connection());
        client.ensureSignInGroups(cluster.connection());

        ClusterRoleBinding b = binding(name);
        assertThat(b.getRoleRef().getKind()).isEqualTo("ClusterRole");
        assertThat(b.getRoleRef().getName()).isEqualTo(role);
        assertThat(b.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getKind()).isEqualTo("Group");
            assertThat(s.getName()).isEqualTo(group);
            assertThat(s.getApiGroup()).isEqualTo("rbac.authorization.k8s.io");
        });
    }

    @Test
    void a_binding_pointed_at_another_role_is_put_back() {
        cluster.admin().rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName("nc-oidc-view")
                .endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName("cluster-admin")
                .endRoleRef().addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("Group").withName("nc:view").endSubject()
                .build()).create();

        client.ensureSignInGroups(cluster.connection());

        assertThat(binding("nc-oidc-view").getRoleRef().getName()).isEqualTo("view");
    }
}
