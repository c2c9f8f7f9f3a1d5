package com.bettercompute.adapters.k8s;

import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ServiceAccountToken;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.ProviderException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * API shapes of {@link Fabric8TenantClusterClient} against {@link SimulatedKubernetesApis} (fabric8's CRUD
 * mock with tokens, discovery and nodes added): the requests it makes and the answers it reads. Not a
 * Kubernetes integration test — the mock stores RBAC without enforcing it.
 */
class Fabric8TenantClusterClientApiShapeTest {
    static final MutableClock clock = new MutableClock();
    static final Map<String, Map<String, Integer>> running = new ConcurrentHashMap<>();
    static SimulatedKubernetesApis apis;
    static Fabric8TenantClusterClient client;

    @BeforeAll
    static void start() {
        running.put("prj/us-central1-a/one", Map.of("gpu", 2, "cpu", 1));
        running.put("prj/us-central1-a/two", Map.of("gpu", 1));
        apis = SimulatedKubernetesApis.start(clock, SimulatedKubernetesApis.NodeSource.ofCounts((p, l, c) -> running.get(p + "/" + l + "/" + c)));
        client = new Fabric8TenantClusterClient(5000);
    }

    @AfterAll
    static void stop() {
        client.close();
        apis.close();
    }

    static ClusterConnection platform(String cluster) {
        return new ClusterConnection("https://" + apis.endpointFor("prj", "us-central1-a", cluster), apis.caCertificateBase64(), apis.adminToken());
    }

    static KubernetesClient as(String cluster, String token) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://" + apis.endpointFor("prj", "us-central1-a", cluster))
                .withCaCertData(apis.caCertificateBase64()).withOauthToken(token).withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    @Test
    void ensures_the_account_and_its_binding_idempotently_and_replaces_a_binding_to_another_role() {
        client.ensureServiceAccount(platform("one"), "bc-u-0123456789abcdef-view", "view");
        client.ensureServiceAccount(platform("one"), "bc-u-0123456789abcdef-view", "view");
        try (KubernetesClient admin = as("one", apis.adminToken())) {
            assertThat(admin.namespaces().withName(TenantClusterClient.NAMESPACE).get()).isNotNull();
            assertThat(admin.serviceAccounts().inNamespace(TenantClusterClient.NAMESPACE).list().getItems())
                    .extracting(sa -> sa.getMetadata().getName()).containsExactly("bc-u-0123456789abcdef-view");
            ClusterRoleBinding binding = admin.rbac().clusterRoleBindings().withName("bc-u-0123456789abcdef-view").get();
            assertThat(binding.getRoleRef().getName()).isEqualTo("view");
            assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
            assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
                assertThat(s.getKind()).isEqualTo("ServiceAccount");
                assertThat(s.getNamespace()).isEqualTo(TenantClusterClient.NAMESPACE);
            });

            client.ensureServiceAccount(platform("one"), "bc-u-0123456789abcdef-view", "edit");
            assertThat(admin.rbac().clusterRoleBindings().withName("bc-u-0123456789abcdef-view").get().getRoleRef().getName()).isEqualTo("edit");
            client.ensureServiceAccount(platform("one"), "bc-u-0123456789abcdef-view", "view");
        }
    }

    @Test
    void a_minted_token_carries_the_expiry_the_cluster_answered_and_works_on_its_cluster_only() {
        client.ensureServiceAccount(platform("one"), "bc-u-aaaaaaaaaaaaaaaa-admin", "cluster-admin");
        ServiceAccountToken token = client.requestToken(platform("one"), "bc-u-aaaaaaaaaaaaaaaa-admin", 3600, null);
        assertThat(token.expiresAt()).isEqualTo(clock.instant().plusSeconds(3600));
        assertThat(token.toString()).doesNotContain(token.token());
        try (KubernetesClient user = as("one", token.token())) {
            assertThat(user.nodes().list().getItems()).hasSize(3);
        }
        try (KubernetesClient elsewhere = as("two", token.token())) {
            assertThatThrownBy(() -> elsewhere.nodes().list()).isInstanceOfSatisfying(KubernetesClientException.class,
                    e -> assertThat(e.getCode()).isEqualTo(401));
        }
    }

    @Test
    void a_minted_token_gets_a_coarse_reading_of_its_builtin_role() {
        Map<String, String> tokens = new java.util.LinkedHashMap<>();
        for (String role : List.of("view", "edit", "cluster-admin")) {
            String account = "bc-u-eeeeeeeeeeeeeeee-" + role.replace("cluster-", "");
            client.ensureServiceAccount(platform("one"), account, role);
            tokens.put(role, client.requestToken(platform("one"), account, 600, null).token());
        }
        for (Map.Entry<String, String> e : tokens.entrySet()) {
            try (KubernetesClient user = as("one", e.getValue())) {
                assertThat(user.nodes().list().getItems()).as(e.getKey()).isNotEmpty();
                Integer podCode = code(() -> user.pods().inNamespace("default").resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                        .withNewMetadata().withName("p-" + e.getKey()).endMetadata().build()).create());
                Integer namespaceCode = code(() -> user.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata().withName("ns-" + e.getKey()).endMetadata().build()).create());
                switch (e.getKey()) {
                    case "view" -> {
                        assertThat(podCode).isEqualTo(403);
                        assertThat(namespaceCode).isEqualTo(403);
                    }
                    case "edit" -> {
                        assertThat(podCode).isNull();
                        assertThat(namespaceCode).isEqualTo(403);
                    }
                    default -> {
                        assertThat(podCode).isNull();
                        assertThat(namespaceCode).isNull();
                    }
                }
            }
        }
    }

    /** The HTTP status the call failed with, or null when it succeeded. */
    static Integer code(Runnable call) {
        try {
            call.run();
            return null;
        } catch (KubernetesClientException e) {
            return e.getCode();
        }
    }

    @Test
    void expired_unknown_and_missing_tokens_are_refused_with_401() {
        client.ensureServiceAccount(platform("one"), "bc-u-ffffffffffffffff-view", "view");
        SimulatedKubernetesApis.Minted shortLived = apis.mint("prj", "us-central1-a", "one", TenantClusterClient.NAMESPACE,
                "bc-u-ffffffffffffffff-view", Duration.ofSeconds(30));
        try (KubernetesClient user = as("one", shortLived.token())) {
            assertThat(user.nodes().list().getItems()).isNotEmpty();
            clock.advance(Duration.ofSeconds(30));
            assertThatThrownBy(() -> user.nodes().list()).isInstanceOfSatisfying(KubernetesClientException.class,
                    e -> assertThat(e.getCode()).isEqualTo(401));
        }
        String forged = shortLived.token().substring(0, shortLived.token().length() - 2) + "xx";
        for (String bad : List.of(forged, "not-a-token", "bcsim.e30.e30")) {
            try (KubernetesClient user = as("one", bad)) {
                assertThatThrownBy(() -> user.nodes().list()).isInstanceOfSatisfying(KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(401));
            }
        }
    }

    @Test
    void a_refused_platform_credential_is_permission_denied_without_the_token_in_the_message() {
        ClusterConnection wrong = new ClusterConnection(platform("one").endpointUrl(), apis.caCertificateBase64(), "secret-wrong-token");
        assertThatThrownBy(() -> client.ensureServiceAccount(wrong, "bc-u-bbbbbbbbbbbbbbbb-view", "view"))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.PERMISSION_DENIED);
                    assertThat(e.getMessage()).doesNotContain("secret-wrong-token");
                });
    }

    @Test
    void a_token_for_a_missing_account_is_not_found_and_a_cluster_not_running_is_not_found() {
        assertThatThrownBy(() -> client.requestToken(platform("one"), "bc-u-nobody-view", 3600, null))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_FOUND));
        assertThatThrownBy(() -> client.ensureServiceAccount(platform("three"), "bc-u-cccccccccccccccc-view", "view"))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_FOUND));
    }

    @Test
    void an_unreachable_api_is_unavailable() {
        ClusterConnection nowhere = new ClusterConnection("https://127.0.0.1:1/clusters/x/y/z", apis.caCertificateBase64(), apis.adminToken());
        assertThatThrownBy(() -> client.ensureServiceAccount(nowhere, "bc-u-dddddddddddddddd-view", "view"))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.UNAVAILABLE));
    }

    @Test
    void nodes_follow_the_node_pools_and_the_builtin_cluster_roles_exist() {
        try (KubernetesClient admin = as("two", apis.adminToken())) {
            assertThat(admin.nodes().list().getItems()).hasSize(1);
            running.put("prj/us-central1-a/two", Map.of("gpu", 3, "cpu", 2));
            List<Node> nodes = admin.nodes().list().getItems();
            assertThat(nodes).hasSize(5);
            assertThat(nodes).allSatisfy(n -> assertThat(n.getStatus().getConditions()).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo("Ready");
                assertThat(c.getStatus()).isEqualTo("True");
            }));
            assertThat(nodes).filteredOn(n -> "cpu".equals(n.getMetadata().getLabels().get("cloud.google.com/gke-nodepool"))).hasSize(2);
            running.put("prj/us-central1-a/two", Map.of("gpu", 1));
            assertThat(admin.nodes().list().getItems()).hasSize(1);
            assertThat(admin.rbac().clusterRoles().list().getItems()).extracting(ClusterRole::getMetadata)
                    .extracting(m -> m.getName()).contains("view", "edit", "admin", "cluster-admin");
            assertThat(admin.getKubernetesVersion().getMinor()).isEqualTo("32");
        }
    }
}
