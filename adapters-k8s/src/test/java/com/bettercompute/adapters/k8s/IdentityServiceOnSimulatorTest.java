package com.bettercompute.adapters.k8s;

import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.adapters.k8s.simulator.TestIssuer;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.TenantClusterClient.IdTokenTrust;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The platform's trust in a cluster's Identity Service for GKE configuration as a contract, on the simulated cluster,
 * which trusts ID tokens only as its {@code ClientConfig} {@code default} in {@code kube-public} names them and serves
 * that kind only where Identity Service is enabled: what the platform writes there (its entry beside GKE's fields and
 * anyone else's entries), that a person's ID token is refused before and accepted after, that nothing is written twice,
 * and the refusal where Identity Service is off.
 */
class IdentityServiceOnSimulatorTest {
    private static final String PROJECT = "prj";
    private static final String LOCATION = "us-central1-a";
    private static final java.util.concurrent.atomic.AtomicInteger NEXT = new java.util.concurrent.atomic.AtomicInteger();
    private static final MutableClock CLOCK = new MutableClock();
    private static final Set<String> CLUSTERS = ConcurrentHashMap.newKeySet();
    private static final Set<String> IDENTITY_SERVICE = ConcurrentHashMap.newKeySet();
    /** One simulated API server (its start is the slow part) for every test, each test a cluster of its own. */
    private static SimulatedKubernetesApis apis;
    private static Fabric8TenantClusterClient tenant;
    private static TestIssuer issuer;

    private String cluster;
    private ClusterConnection connection;
    private KubernetesClient admin;
    private String audience;

    @BeforeAll
    static void startAll() {
        apis = SimulatedKubernetesApis.start(CLOCK, new SimulatedKubernetesApis.NodeSource() {
            @Override
            public Map<String, SimulatedKubernetesApis.NodePool> nodePools(String project, String location, String cluster) {
                return CLUSTERS.contains(cluster) ? Map.of("bc-cpu-worker", SimulatedKubernetesApis.NodePool.plain(1)) : null;
            }

            @Override
            public boolean identityService(String project, String location, String cluster) {
                return IDENTITY_SERVICE.contains(cluster);
            }
        });
        tenant = new Fabric8TenantClusterClient(30_000);
        issuer = new TestIssuer();
    }

    @AfterAll
    static void stopAll() {
        issuer.close();
        tenant.close();
        apis.close();
    }

    @BeforeEach
    void start() {
        cluster = "signin-" + NEXT.incrementAndGet();
        CLUSTERS.add(cluster);
        connection = new ClusterConnection("https://" + apis.endpointFor(PROJECT, LOCATION, cluster), apis.caCertificateBase64(),
                apis.adminToken());
        admin = client(apis.adminToken());
        audience = SimulatedKubernetesApis.audienceOf(PROJECT, LOCATION, cluster);
    }

    @AfterEach
    void stop() {
        admin.close();
    }

    private KubernetesClient client(String token) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(connection.endpointUrl()).withCaCertData(apis.caCertificateBase64())
                .withOauthToken(token).withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private GenericKubernetesResource clientConfig() {
        return admin.genericKubernetesResources(Fabric8TenantClusterClient.CLIENT_CONFIGS).inNamespace("kube-public").withName("default").get();
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> methods() {
        return (List<Map<String, Object>>) ((Map<String, Object>) clientConfig().getAdditionalProperties().get("spec")).get("authentication");
    }

    /** What a signed-in admin's {@code kubectl get nodes} answers: null for 200, else the status code. */
    private Integer listNodesAsAPerson() {
        try (KubernetesClient person = client(issuer.sign(issuer.idToken(audience, "user:alice@acme.example", List.of("nc:admin"),
                CLOCK.instant())))) {
            person.nodes().list();
            return null;
        } catch (KubernetesClientException e) {
            return e.getCode();
        }
    }

    private void enableIdentityService() {
        IDENTITY_SERVICE.add(cluster);
        apis.step();
    }

    @Test
    void the_platforms_entry_is_written_beside_gkes_fields_and_an_id_token_is_refused_before_and_accepted_after() {
        enableIdentityService();
        tenant.ensureSignInGroups(connection);
        assertThat(listNodesAsAPerson()).as("before the ClientConfig names the platform").isEqualTo(401);

        tenant.trustIdTokens(connection, new IdTokenTrust(issuer.url(), audience));

        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) clientConfig().getAdditionalProperties().get("spec");
        assertThat(spec).as("what Identity Service wrote stays").containsEntry("name", cluster)
                .containsEntry("server", connection.endpointUrl()).containsEntry("certificateAuthorityData", apis.caCertificateBase64());
        assertThat(methods()).containsExactly(Map.of("name", "better-compute", "oidc", Map.of(
                "clientID", audience, "issuerURI", issuer.url(), "userClaim", "sub", "userPrefix", "nc:", "groupsClaim", "groups")));
        assertThat(listNodesAsAPerson()).as("after").isNull();

        String version = clientConfig().getMetadata().getResourceVersion();
        tenant.trustIdTokens(connection, new IdTokenTrust(issuer.url(), audience));
        assertThat(clientConfig().getMetadata().getResourceVersion()).as("nothing written when it holds").isEqualTo(version);
    }

    @Test
    void another_method_stays_and_a_new_issuer_replaces_the_platforms_entry() {
        enableIdentityService();
        GenericKubernetesResource config = clientConfig();
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) config.getAdditionalProperties().get("spec");
        spec.put("authentication", List.of(Map.of("name", "corp", "oidc", Map.of("clientID", "corp-kubectl",
                "issuerURI", "https://login.corp.example"))));
        admin.genericKubernetesResources(Fabric8TenantClusterClient.CLIENT_CONFIGS).inNamespace("kube-public").resource(config).update();

        tenant.trustIdTokens(connection, new IdTokenTrust("https://old.platform.example", audience));
        tenant.trustIdTokens(connection, new IdTokenTrust(issuer.url(), audience));

        assertThat(methods()).extracting(m -> m.get("name")).containsExactly("corp", "better-compute");
        assertThat(methods().get(1)).extracting(m -> ((Map<?, ?>) m.get("oidc")).get("issuerURI")).isEqualTo(issuer.url());
        tenant.ensureSignInGroups(connection);
        assertThat(listNodesAsAPerson()).isNull();
    }

    @Test
    void a_cluster_without_identity_service_is_refused_with_the_reason() {
        assertThatThrownBy(() -> tenant.trustIdTokens(connection, new IdTokenTrust(issuer.url(), audience)))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.FAILED_PRECONDITION);
                    assertThat(e.getMessage()).contains("Identity Service for GKE is not enabled");
                });
    }
}
