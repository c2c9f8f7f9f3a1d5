package com.bettercompute.adapters.gke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.application.port.ProviderNames;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.fakes.MutableClock;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import com.google.container.v1.Cluster;
import com.google.container.v1.NodePool;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The simulator's faults, seen through the adapter as the reconciler will see them. */
class SimulatorFaultsTest {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private static final String ID = "kcl_faults0000000000000000000";
    private static final ClusterLocator AT = new ClusterLocator("p1", "us-central1-a", ProviderNames.clusterName(ID));
    private static final ClusterSpec SPEC = new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(), false, null, null);

    private final MutableClock clock = new MutableClock();
    private final List<Duration> pauses = new ArrayList<>();
    private GkeSimulator simulator;
    private GkeClusterProvider provider;

    @BeforeEach
    void start() {
        simulator = GkeSimulator.start(clock, OPERATION, 0, 0, pauses::add);
        provider = GkeClusterProviders.grpc(new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT, null));
    }

    @AfterEach
    void stop() {
        provider.close();
        simulator.close();
    }

    private void running() {
        provider.createCluster(SPEC);
        clock.advance(OPERATION);
        assertThat(provider.observe(AT).settled()).isTrue();
    }

    @Test
    void failTheNextCallsOfAMethod() {
        simulator.failNextCalls("CreateCluster", 1, "PERMISSION_DENIED", "The caller does not have permission.");
        assertThatThrownBy(() -> provider.createCluster(SPEC)).isInstanceOfSatisfying(ProviderException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.PERMISSION_DENIED);
            assertThat(e.getMessage()).isEqualTo("The caller does not have permission.");
        });
        provider.createCluster(SPEC);
        assertThat(provider.observe(AT).exists()).isTrue();
    }

    @Test
    void theClientRetriesReadsThatFailUnavailableButNotChanges() {
        simulator.failNextCalls("GetCluster", 1, "UNAVAILABLE", "try later");
        assertThat(provider.observe(AT).exists()).isFalse();
        simulator.failNextCalls("CreateCluster", 1, "UNAVAILABLE", "try later");
        assertThatThrownBy(() -> provider.createCluster(SPEC)).isInstanceOfSatisfying(ProviderException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
            assertThat(e.retryable()).isTrue();
            assertThat(e.getCause()).isNull();
        });
    }

    @Test
    void refuseAVersion() {
        simulator.refuseVersion("1.33.5-gke.1080000");
        assertThat(provider.serverConfig("p1", "us-central1-a").validVersions()).doesNotContain("1.33.5-gke.1080000");
        ClusterSpec pinned = new ClusterSpec(AT, ID, ClusterMode.STANDARD, ReleaseChannel.REGULAR, "1.33.5-gke.1080000", List.of(), false, null, null);
        assertThatThrownBy(() -> provider.createCluster(pinned))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID));
    }

    @Test
    void exhaustAQuota() {
        simulator.exhaustQuota("p1");
        assertThatThrownBy(() -> provider.createCluster(SPEC))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.QUOTA));
        simulator.restoreQuota("p1");
        running();
        simulator.exhaustQuota("*");
        assertThatThrownBy(() -> provider.createNodePool(AT, new NodePoolSpec("more", "e2-standard-4", 3, null, 100, "pd-balanced", false, null, List.of(), Map.of(), List.of())))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.QUOTA));
        assertThatThrownBy(() -> provider.resizeNodePool(AT, "bc-initial", 5))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.QUOTA));
    }

    @Test
    void addLatency() {
        simulator.addLatency(Duration.ofMillis(250));
        provider.observe(AT);
        assertThat(pauses).isNotEmpty().allMatch(d -> d.equals(Duration.ofMillis(250)));
    }

    @Test
    void failOperationsWithAMessage() {
        running();
        simulator.failNextOperations(1, "Node pool upgrade failed: insufficient capacity.");
        String creating = provider.createNodePool(AT, new NodePoolSpec("gpu", "a3-highgpu-8g", 1, null, 100, "pd-balanced", false, null,
                List.of(), Map.of(), List.of()));
        clock.advance(OPERATION);
        ClusterObservation observed = provider.observe(AT);
        assertThat(provider.operation(AT, creating).error()).isEqualTo("Node pool upgrade failed: insufficient capacity.");
        assertThat(observed.nodePool("gpu").orElseThrow().statusMessage()).isEqualTo("Node pool upgrade failed: insufficient capacity.");
        // the next operation that succeeds clears the error
        String deleting = provider.deleteNodePool(AT, "gpu");
        clock.advance(OPERATION);
        assertThat(provider.operation(AT, deleting).error()).isNull();
    }

    @Test
    void deleteAClusterBehindTheProductsBack() {
        running();
        assertThat(simulator.deleteClusterBehindTheBack(AT.project(), AT.location(), AT.name())).isTrue();
        assertThat(provider.observe(AT).exists()).isFalse();
    }

    @Test
    void moveAClusterToANewVersionAsAReleaseChannelWould() {
        running();
        String version = simulator.releaseChannelUpgrade(AT.project(), AT.location(), AT.name(), null);
        ClusterObservation observed = provider.observe(AT);
        assertThat(observed.masterVersion()).isEqualTo(version).isEqualTo("1.33.5-gke.1162000");
        assertThat(observed.nodeVersion()).isEqualTo(version);
        assertThat(observed.busy()).isFalse();
    }

    @Test
    void theLegacyProjectZoneClusterFieldsWork() throws Exception {
        running();
        try (ClusterManagerClient client = ClusterManagerClient.create(ClusterManagerSettings.newBuilder()
                .setEndpoint(simulator.grpcTarget())
                .setCredentialsProvider(NoCredentialsProvider.create())
                .setTransportChannelProvider(InstantiatingGrpcChannelProvider.newBuilder()
                        .setEndpoint(simulator.grpcTarget()).setChannelConfigurator(ManagedChannelBuilder::usePlaintext).build())
                .build())) {
            Cluster cluster = client.getCluster(AT.project(), AT.location(), AT.name());
            assertThat(cluster.getResourceLabelsMap()).containsEntry(ProviderNames.CLUSTER_LABEL, ID);
            assertThat(cluster.getSelfLink()).endsWith("/projects/p1/locations/us-central1-a/clusters/" + AT.name());
            assertThat(cluster.getCreateTime()).isEqualTo("2026-01-01T00:00:00Z");
            assertThat(cluster.getLabelFingerprint()).hasSize(8);
            assertThat(cluster.getLocation()).isEqualTo("us-central1-a");
            assertThat(client.listNodePools(AT.project(), AT.location(), AT.name()).getNodePoolsList())
                    .extracting(NodePool::getName).containsExactly("bc-initial");
            assertThat(client.listClusters(AT.project(), "-").getClustersList()).hasSize(1);
        }
    }
}
