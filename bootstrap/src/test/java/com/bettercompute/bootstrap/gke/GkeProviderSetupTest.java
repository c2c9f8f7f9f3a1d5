package com.bettercompute.bootstrap.gke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.application.port.ProviderNames;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.adapters.k8s.Fabric8TenantClusterClient;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.TenantClusterClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.google.container.v1.AcceleratorConfig;
import com.google.container.v1.NodeTaint;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodePool;
import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import org.junit.jupiter.api.io.TempDir;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Date;

class GkeProviderSetupTest {
    private static final String ID = "kcl_01hzx8k3v4w5y6z7a8b9c0d1e2";
    private static final ClusterLocator AT = new ClusterLocator("demo", "us-central1-a", ProviderNames.clusterName(ID));
    private final MutableClock clock = new MutableClock();

    @ParameterizedTest(name = "{0}")
    @MethodSource("nodePools")
    void aSimulatedClustersNodesCarryTheirPoolsLabelsTaintsAndGpus(String what, NodePool pool,
                                                                    SimulatedKubernetesApis.NodePool nodes) {
        assertThat(GkeProviderSetup.nodePool(new GkeSimulator.PoolNodes(2, pool))).isEqualTo(nodes);
    }

    static Stream<Arguments> nodePools() {
        var plain = NodePool.newBuilder().setName("cpu").setVersion("1.32.9-gke.1108000")
                .setConfig(NodeConfig.newBuilder().setMachineType("e2-standard-4").putLabels("example.com/team", "a"))
                .build();
        var gpu = NodePool.newBuilder().setName("market-r1").setVersion("1.33.5-gke.1080000")
                .setConfig(NodeConfig.newBuilder().setMachineType("a3-highgpu-8g")
                        .putLabels("nationalcompute.com/request", "r1")
                        .addTaints(NodeTaint.newBuilder().setKey("nationalcompute.com/gpu-worker").setValue("true")
                                .setEffect(NodeTaint.Effect.NO_SCHEDULE))
                        .addTaints(NodeTaint.newBuilder().setKey("soft").setValue("x")
                                .setEffect(NodeTaint.Effect.PREFER_NO_SCHEDULE))
                        .addAccelerators(AcceleratorConfig.newBuilder().setAcceleratorType("nvidia-h100-80gb").setAcceleratorCount(8)))
                .build();
        return Stream.of(
                Arguments.of("a CPU pool: its labels, no GPUs", plain,
                        new SimulatedKubernetesApis.NodePool(2, Map.of("example.com/team", "a"),
                                List.of(), 0, "e2-standard-4", "1.32.9-gke.1108000")),
                Arguments.of("a GPU pool: accelerator label and count, taints with Kubernetes' effects", gpu,
                        new SimulatedKubernetesApis.NodePool(2, Map.of("nationalcompute.com/request", "r1",
                                "cloud.google.com/gke-accelerator", "nvidia-h100-80gb"),
                                List.of(new SimulatedKubernetesApis.Taint("nationalcompute.com/gpu-worker", "true", "NoSchedule"),
                                        new SimulatedKubernetesApis.Taint("soft", "x", "PreferNoSchedule")),
                                8, "a3-highgpu-8g", "1.33.5-gke.1080000")));
    }

    @Test
    void theDefaultIsAnEmbeddedSimulatorReachedOverGrpc() {
        try (GkeProviderSetup setup = GkeProviderSetup.from("simulator", null, Duration.ofSeconds(20), clock)) {
            assertThat(setup.simulator()).isPresent();
            setup.provider().createCluster(new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(), false, null, null));
            clock.advance(Duration.ofSeconds(20));
            assertThat(setup.provider().observe(AT).settled()).isTrue();
            assertThat(setup.simulator().orElseThrow().clusters()).containsExactly("projects/demo/locations/us-central1-a/clusters/" + AT.name());
        }
    }

    @Test
    void theEmbeddedSimulatorWithAStateDirectoryFindsItsClustersAndTheirObjectsAfterARestart(@TempDir Path state) throws Exception {
        ClusterObservation before;
        try (GkeProviderSetup setup = GkeProviderSetup.from("simulator", null, Duration.ofSeconds(20), clock, state);
                Fabric8TenantClusterClient kubernetes = new Fabric8TenantClusterClient(30_000)) {
            setup.provider().createCluster(new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(), false, null, null));
            clock.advance(Duration.ofSeconds(20));
            before = setup.provider().observe(AT);
            kubernetes.ensureServiceAccount(new ClusterConnection("https://" + before.endpoint(), before.caCertificate(),
                    setup.kubernetesApis().orElseThrow().adminToken()), "bc-u-0123456789abcdef-view", "view");
        }
        Path objects = state.resolve("kubernetes").resolve("clusters");
        try (Stream<Path> files = Files.list(objects)) {
            assertThat(files).hasSize(1);
        }
        try (GkeProviderSetup setup = GkeProviderSetup.from("simulator", null, Duration.ofSeconds(20), clock, state)) {
            ClusterObservation after = setup.provider().observe(AT);
            assertThat(after.settled()).isTrue();
            assertThat(after.endpoint()).isEqualTo(before.endpoint());
            assertThat(after.caCertificate()).isEqualTo(before.caCertificate());
            setup.provider().deleteCluster(AT);
            clock.advance(Duration.ofSeconds(20));
            assertThat(setup.simulator().orElseThrow().clusters()).isEmpty();
        }
        assertThat(objects).isEmptyDirectory();
    }

    /**
     * {@code kubectl version} beside {@code gcloud}: a simulated cluster's API server reports its control plane's GKE
     * version ({@code v1.33.5-gke.1080000}), and the new one after an upgrade.
     */
    @Test
    void aSimulatedClustersApiServerReportsItsControlPlanesVersionBeforeAndAfterAnUpgrade() throws Exception {
        try (GkeProviderSetup setup = GkeProviderSetup.from("simulator", null, Duration.ofSeconds(20), clock)) {
            setup.provider().createCluster(new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(), false, null, null));
            clock.advance(Duration.ofSeconds(20));
            ClusterObservation created = setup.provider().observe(AT);
            Config admin = new ConfigBuilder(Config.empty()).withMasterUrl("https://" + created.endpoint()).withCaCertData(created.caCertificate())
                    .withOauthToken(setup.kubernetesApis().orElseThrow().adminToken()).build();
            try (KubernetesClient platform = new KubernetesClientBuilder().withConfig(admin).build()) {
                assertThat(created.masterVersion()).startsWith("1.33.");
                assertThat(platform.getKubernetesVersion().getGitVersion()).isEqualTo("v" + created.masterVersion());
                assertThat(platform.getKubernetesVersion().getMinor()).isEqualTo("33");

                setup.provider().updateCluster(AT, new ClusterChange.MasterVersion("1.33.5-gke.1162000"));
                clock.advance(Duration.ofSeconds(20));
                ClusterObservation upgraded = setup.provider().observe(AT);
                assertThat(upgraded.masterVersion()).isEqualTo("1.33.5-gke.1162000").isNotEqualTo(created.masterVersion());
                assertThat(platform.getKubernetesVersion().getGitVersion()).isEqualTo("v1.33.5-gke.1162000");
            }
        }
    }

    /**
     * A Standard cluster the provider creates has Identity Service for GKE, and the embedded simulator's cluster trusts
     * the issuer its ClientConfig names once the platform's in-cluster client wrote it there, and none before: an ID
     * token of that issuer for the cluster is then its user, bound as the platform binds its groups. The issuer here is
     * a stand-in for the platform's (discovery and JWKS on loopback).
     */
    @Test
    void theEmbeddedSimulatorsClustersTrustTheIssuerTheirClientConfigNames() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyIDFromThumbprint(true).generate();
        HttpServer issuer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        String url = "http://127.0.0.1:" + issuer.getAddress().getPort();
        issuer.createContext("/", exchange -> {
            byte[] body = (exchange.getRequestURI().getPath().equals("/jwks") ? new JWKSet(key.toPublicJWK()).toString()
                    : "{\"issuer\":\"" + url + "\",\"jwks_uri\":\"" + url + "/jwks\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        issuer.start();
        try (GkeProviderSetup setup = GkeProviderSetup.from("simulator", null, Duration.ZERO, clock, null);
             Fabric8TenantClusterClient tenant = new Fabric8TenantClusterClient(30_000)) {
            setup.provider().createCluster(new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(), false, null, null));
            ClusterObservation cluster = setup.provider().observe(AT);
            String audience = SimulatedKubernetesApis.audienceOf(AT.project(), AT.location(), AT.name());
            SignedJWT token = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), new JWTClaimsSet.Builder()
                    .issuer(url).subject("p-1").audience(audience)
                    .claim("groups", List.of("nc:admin")).issueTime(Date.from(clock.instant()))
                    .expirationTime(Date.from(clock.instant().plusSeconds(900))).build());
            token.sign(new RSASSASigner(key));
            ClusterConnection platform = new ClusterConnection("https://" + cluster.endpoint(), cluster.caCertificate(),
                    setup.kubernetesApis().orElseThrow().adminToken());
            Config person = new ConfigBuilder(Config.empty()).withMasterUrl(platform.endpointUrl()).withCaCertData(cluster.caCertificate())
                    .withOauthToken(token.serialize()).withRequestRetryBackoffLimit(0).build();
            try (KubernetesClient signedIn = new KubernetesClientBuilder().withConfig(person).build()) {
                tenant.ensureSignInGroups(platform);
                assertThatThrownBy(() -> signedIn.nodes().list()).isInstanceOfSatisfying(KubernetesClientException.class,
                        e -> assertThat(e.getCode()).as("no issuer in the ClientConfig yet").isEqualTo(401));
                tenant.trustIdTokens(platform, new TenantClusterClient.IdTokenTrust(url, audience));
                assertThat(signedIn.nodes().list().getItems()).isNotEmpty();
            }
        } finally {
            issuer.stop(0);
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
            "127.0.0.1:4000, PLAINTEXT", "127.8.9.10:4000, PLAINTEXT", "localhost:4000, PLAINTEXT", "[::1]:4000, PLAINTEXT",
            "container.googleapis.com:443, TLS", "10.0.0.5:4000, TLS", "gke.internal:4000, TLS"})
    void anEndpointOnThisMachineIsSpokenToInPlaintextAnyOtherOverTls(String endpoint, Transport transport) {
        assertThat(GkeProviderSetup.transportTo(endpoint)).isEqualTo(transport);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
            "http://127.0.0.1:4000, PLAINTEXT", "http://localhost:4000, PLAINTEXT", "http://[::1]:4000, PLAINTEXT",
            "https://file.googleapis.com, TLS", "https://files.internal:8443, TLS",
            "http://10.0.0.5:4000, refused: for this machine only", "http://127.0.0.1, refused: names its port",
            "127.0.0.1:4000, refused: takes http://", "http://127.0.0.1:4000/v1, refused: takes http://",
            "ftp://127.0.0.1:4000, refused: takes http://", "'', refused: takes http://"})
    void aFilestoreEndpointOnThisMachineIsPlaintextHttpsIsTlsAndPlainHttpElsewhereIsRefused(String url, String expected) {
        if (expected.startsWith("refused: ")) {
            assertThatThrownBy(() -> GkeProviderSetup.filestoreAt(url)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--filestore-endpoint").hasMessageContaining(expected.substring("refused: ".length()));
        } else {
            var endpoint = GkeProviderSetup.filestoreAt(url);
            assertThat(endpoint.transport()).isEqualTo(Transport.valueOf(expected));
            assertThat(endpoint.filestoreUrl()).isEqualTo(url);
            assertThat(endpoint.monitoringUrl()).as("the one read of Cloud Monitoring goes to the same address").isEqualTo(url);
            assertThat(endpoint.credentials()).as("application-default over TLS, none in the clear").isNull();
        }
    }

    @Test
    void aSecondEmbeddedSimulatorOnTheSameDataIsRefusedWithWhatToDo(@TempDir Path state) {
        try (GkeProviderSetup first = GkeProviderSetup.from("simulator", null, Duration.ofSeconds(20), clock, state)) {
            assertThatThrownBy(() -> GkeProviderSetup.from("simulator", null, Duration.ofSeconds(20), clock, state))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("in use").hasMessageContaining("--data-dir");
        }
    }

    @Test
    void anEndpointPointsAtAnotherGkeApi() {
        try (GkeSimulator standalone = GkeSimulator.start(clock, Duration.ZERO, 0, 0);
                GkeProviderSetup setup = GkeProviderSetup.from("simulator", standalone.grpcTarget(), Duration.ofSeconds(20), clock)) {
            assertThat(setup.simulator()).isEmpty();
            setup.provider().createCluster(new ClusterSpec(AT, ID, ClusterMode.STANDARD, null, null, List.of(), false, null, null));
            assertThat(standalone.clusters()).hasSize(1);
        }
    }

    @Test
    void refusesWhatItDoesNotKnow() {
        assertThatThrownBy(() -> GkeProviderSetup.from("aws", null, Duration.ZERO, clock)).hasMessageContaining("--provider");
        assertThatThrownBy(() -> GkeProviderSetup.from("simulator", "http://x", Duration.ZERO, clock)).hasMessageContaining("--gke-endpoint");
    }
}
