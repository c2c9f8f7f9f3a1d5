package com.bettercompute.adapters.gke;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.bettercompute.adapters.gke.simulator.ClusterEndpoints;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.application.port.ProviderNames;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.fakes.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The simulator's hook for its clusters' Kubernetes APIs: a running cluster reports the endpoint and CA the
 * hook gives (a path included), and tells the node counts of its pools, following resizes; the endpoint's
 * credentials are the platform's identity in those clusters.
 */
class SimulatorClusterEndpointsTest {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private static final String ID = "kcl_endpoints000000000000000000";
    private static final ClusterLocator AT = new ClusterLocator("p1", "us-central1-a", ProviderNames.clusterName(ID));
    private static final ClusterSpec SPEC = new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(), false, null, null);

    private final MutableClock clock = new MutableClock();
    private GkeSimulator simulator;
    private GkeClusterProvider provider;

    @BeforeEach
    void start() {
        simulator = GkeSimulator.start(clock, OPERATION, 0, 0);
        simulator.clusterEndpoints((project, location, cluster) ->
                new ClusterEndpoints.Endpoint("127.0.0.1:6443/clusters/" + project + "/" + location + "/" + cluster, "Q0E="));
        provider = GkeClusterProviders.grpc(new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT,
                GoogleCredentials.create(new AccessToken("platform-token", null))));
    }

    @AfterEach
    void stop() {
        provider.close();
        simulator.close();
    }

    @Test
    void a_running_cluster_reports_the_hooks_endpoint_and_ca_and_its_node_counts() {
        provider.createCluster(SPEC);
        ClusterObservation provisioning = provider.observe(AT);
        assertThat(provisioning.endpoint()).doesNotContain("/clusters/");
        assertThat(simulator.nodeCounts("p1", "us-central1-a", AT.name())).isNull();

        clock.advance(OPERATION);
        ClusterObservation running = provider.observe(AT);
        assertThat(running.endpoint()).isEqualTo("127.0.0.1:6443/clusters/p1/us-central1-a/" + AT.name());
        assertThat(running.caCertificate()).isEqualTo("Q0E=");
        assertThat(simulator.nodeCounts("p1", "us-central1-a", AT.name())).containsOnlyKeys(ClusterProvider.INITIAL_NODE_POOL);

        provider.createNodePool(AT, new NodePoolSpec("gpu", "a3-highgpu-8g", 2, null, 100, "pd-balanced", false, null, List.of(), Map.of(), List.of()));
        assertThat(simulator.nodeCounts("p1", "us-central1-a", AT.name())).doesNotContainKey("gpu");
        clock.advance(OPERATION);
        assertThat(simulator.nodeCounts("p1", "us-central1-a", AT.name())).containsEntry("gpu", 2);
        provider.resizeNodePool(AT, "gpu", 3);
        clock.advance(OPERATION);
        assertThat(simulator.nodeCounts("p1", "us-central1-a", AT.name())).containsEntry("gpu", 3);
        assertThat(simulator.nodeCounts("p1", "us-central1-a", "no-such-cluster")).isNull();
        assertThat(provider.platformAccessToken()).isEqualTo("platform-token");
    }

    @Test
    void an_endpoint_shows_its_address_and_transport_never_its_credentials() {
        Endpoint endpoint = new Endpoint("127.0.0.1:1", Transport.PLAINTEXT, GoogleCredentials.create(new AccessToken("platform-token", null)));
        assertThat(endpoint.toString()).contains("127.0.0.1:1", "PLAINTEXT").doesNotContain("platform-token");
    }

    @Test
    void without_credentials_there_is_no_platform_token() {
        try (GkeClusterProvider plain = GkeClusterProviders.grpc(new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT, null))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(plain::platformAccessToken)
                    .isInstanceOfSatisfying(com.bettercompute.application.port.ProviderException.class,
                            e -> assertThat(e.kind()).isEqualTo(com.bettercompute.application.port.ProviderException.Kind.PERMISSION_DENIED));
        }
    }
}
