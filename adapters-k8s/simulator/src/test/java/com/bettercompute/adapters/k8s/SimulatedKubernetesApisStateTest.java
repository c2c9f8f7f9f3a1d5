package com.bettercompute.adapters.k8s;

import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.fakes.MutableClock;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The simulated Kubernetes APIs restarted on their state directory: the objects stored in each cluster,
 * the certificate and endpoint a kubeconfig names, and the tokens handed out are all as they were.
 */
class SimulatedKubernetesApisStateTest {
    private static final String ACCOUNT = "bc-u-0123456789abcdef-edit";
    private static final String NAMESPACE = "better-compute-system";

    @TempDir
    Path state;

    private final MutableClock clock = new MutableClock();
    private final Map<String, Map<String, Integer>> running = new ConcurrentHashMap<>(Map.of("prj/us-central1-a/one", Map.of("gpu", 2)));
    private SimulatedKubernetesApis apis;

    @AfterEach
    void stop() {
        if (apis != null) {
            apis.close();
        }
    }

    private SimulatedKubernetesApis start(Path directory) {
        return SimulatedKubernetesApis.start(clock, SimulatedKubernetesApis.NodeSource.ofCounts((p, l, c) -> running.get(p + "/" + l + "/" + c)), directory);
    }

    private void restart() {
        apis.close();
        apis = start(state);
    }

    /** The platform's client of the cluster: its admin token. */
    private KubernetesClient platform() {
        return kubeconfig(apis.endpointFor("prj", "us-central1-a", "one"), apis.caCertificateBase64(), apis.adminToken());
    }

    /** A service account in its namespace, bound to {@code clusterRole} cluster-wide, as the platform makes one for a kubeconfig. */
    private void serviceAccount(String clusterRole) {
        try (KubernetesClient platform = platform()) {
            platform.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
            platform.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder().withNewMetadata().withName(ACCOUNT)
                    .withNamespace(NAMESPACE).endMetadata().build()).create();
            platform.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(ACCOUNT).endMetadata()
                    .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(clusterRole).endRoleRef()
                    .addNewSubject().withKind("ServiceAccount").withName(ACCOUNT).withNamespace(NAMESPACE).endSubject().build()).create();
        }
    }

    /** A token of the service account for an hour (TokenRequest). */
    private String token() {
        try (KubernetesClient platform = platform()) {
            return platform.serviceAccounts().inNamespace(NAMESPACE).withName(ACCOUNT).tokenRequest(new TokenRequestBuilder()
                    .withNewSpec().withExpirationSeconds(3600L).endSpec().build()).getStatus().getToken();
        }
    }

    /** A client as a kubeconfig makes it: the endpoint and CA as they were when it was handed out. */
    private static KubernetesClient kubeconfig(String endpoint, String ca, String token) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://" + endpoint).withCaCertData(ca).withOauthToken(token)
                .withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    @Test
    void objectsKubeconfigsAndTokensHandedOutBeforeARestartWorkAfterIt() {
        apis = start(state);
        serviceAccount("edit");
        String token = token();
        String endpoint = apis.endpointFor("prj", "us-central1-a", "one");
        String ca = apis.caCertificateBase64();
        ServiceAccount before;
        try (KubernetesClient admin = kubeconfig(endpoint, ca, apis.adminToken())) {
            before = admin.serviceAccounts().inNamespace(NAMESPACE).withName(ACCOUNT).get();
            assertThat(admin.nodes().list().getItems()).hasSize(2);
        }

        restart();

        assertThat(apis.endpointFor("prj", "us-central1-a", "one")).isEqualTo(endpoint);
        assertThat(apis.caCertificateBase64()).isEqualTo(ca);
        try (KubernetesClient user = kubeconfig(endpoint, ca, token)) {
            assertThat(user.nodes().list().getItems()).hasSize(2);
            ServiceAccount after = user.serviceAccounts().inNamespace(NAMESPACE).withName(ACCOUNT).get();
            assertThat(after.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
            assertThat(after.getMetadata().getResourceVersion()).isEqualTo(before.getMetadata().getResourceVersion());
        }
        try (KubernetesClient admin = kubeconfig(endpoint, ca, apis.adminToken())) {
            assertThat(admin.rbac().clusterRoleBindings().withName(ACCOUNT).get().getRoleRef().getName()).isEqualTo("edit");
            ServiceAccount created = admin.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccount())
                    .create(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder().withNewMetadata().withName("later").endMetadata().build());
            assertThat(Long.parseLong(created.getMetadata().getResourceVersion()))
                    .isGreaterThan(Long.parseLong(before.getMetadata().getResourceVersion()));
        }

        clock.advance(Duration.ofSeconds(3600));
        try (KubernetesClient user = kubeconfig(endpoint, ca, token)) {
            assertThatThrownBy(() -> user.nodes().list()).isInstanceOfSatisfying(KubernetesClientException.class,
                    e -> assertThat(e.getCode()).isEqualTo(401));
        }
    }

    @Test
    void nodesFollowThePoolsAfterARestart() {
        apis = start(state);
        try (KubernetesClient admin = kubeconfig(apis.endpointFor("prj", "us-central1-a", "one"), apis.caCertificateBase64(), apis.adminToken())) {
            assertThat(admin.nodes().list().getItems()).hasSize(2);
        }
        restart();
        running.put("prj/us-central1-a/one", Map.of("gpu", 1, "cpu", 1));
        try (KubernetesClient admin = kubeconfig(apis.endpointFor("prj", "us-central1-a", "one"), apis.caCertificateBase64(), apis.adminToken())) {
            assertThat(admin.nodes().list().getItems()).extracting(n -> n.getMetadata().getLabels().get("cloud.google.com/gke-nodepool"))
                    .containsExactlyInAnyOrder("gpu", "cpu");
        }
    }

    @Test
    void everyAnsweredChangeIsAlreadyOnDisk() throws IOException {
        apis = start(state);
        serviceAccount("view");
        Path copy = Files.createDirectories(state.resolveSibling(state.getFileName() + "-copy"));
        try (Stream<Path> files = Files.walk(state)) {
            for (Path file : files.toList()) {
                Path target = copy.resolve(state.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }

        try (SimulatedKubernetesApis copied = start(copy);
             KubernetesClient admin = kubeconfig(copied.endpointFor("prj", "us-central1-a", "one"), copied.caCertificateBase64(),
                     copied.adminToken())) {
            assertThat(admin.rbac().clusterRoleBindings().withName(ACCOUNT).get().getRoleRef().getName()).isEqualTo("view");
        }
    }

    @Test
    void aClusterTheProviderDeletedStartsEmptyWhenMadeAgain() {
        apis = start(state);
        serviceAccount("view");
        apis.forget("prj", "us-central1-a", "one");
        restart();

        try (KubernetesClient admin = kubeconfig(apis.endpointFor("prj", "us-central1-a", "one"), apis.caCertificateBase64(), apis.adminToken())) {
            assertThat(admin.serviceAccounts().inNamespace(NAMESPACE).withName(ACCOUNT).get()).isNull();
            assertThat(admin.rbac().clusterRoles().withName("view").get()).isNotNull();
        }
    }

    /**
     * An identity saved before ServiceAccount tokens were JWTs (an HMAC key, no RSA key) is given an RSA key at
     * its first start and kept owner-only; its certificate and port stay, so kubeconfigs keep their endpoint and CA.
     */
    @Test
    void anIdentityFromBeforeJwtTokensGetsAKeyAndKeepsItsEndpointAndCa() throws IOException {
        apis = start(state);
        String endpoint = apis.endpointFor("prj", "us-central1-a", "one");
        String ca = apis.caCertificateBase64();
        apis.close();
        Path identity = state.resolve("identity.json");
        KubernetesSerialization json = new KubernetesSerialization();
        Map<String, Object> saved = new java.util.LinkedHashMap<>(json.unmarshal(Files.readString(identity), Map.class));
        saved.remove("serviceAccountKey");
        saved.put("signingKey", "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I=");
        Files.writeString(identity, json.asJson(saved));

        apis = start(state);
        assertThat(apis.endpointFor("prj", "us-central1-a", "one")).isEqualTo(endpoint);
        assertThat(apis.caCertificateBase64()).isEqualTo(ca);
        Map<String, Object> upgraded = json.unmarshal(Files.readString(identity), Map.class);
        assertThat(upgraded).containsKey("serviceAccountKey").doesNotContainKey("signingKey");
        assertThat(Files.getPosixFilePermissions(identity)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        serviceAccount("view");
        String token = token();
        restart();
        try (KubernetesClient user = kubeconfig(endpoint, ca, token)) {
            assertThat(user.nodes().list().getItems()).hasSize(2);
        }
    }
}
