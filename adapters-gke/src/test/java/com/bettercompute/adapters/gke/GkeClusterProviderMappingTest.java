package com.bettercompute.adapters.gke;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.application.port.ProviderNames;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import com.google.container.v1.Cluster;
import com.google.container.v1.MasterAuthorizedNetworksConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodeTaint;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What GkeClusterProvider sends to GKE, read back as GKE's own resources. */
class GkeClusterProviderMappingTest {
    private static final String ID = "kcl_01hzx8k3v4w5y6z7a8b9c0d1e2";
    private final MutableClock clock = new MutableClock();
    private GkeSimulator simulator;
    private GkeClusterProvider provider;
    private ClusterManagerClient gke;

    @BeforeEach
    void start() throws IOException {
        simulator = GkeSimulator.start(clock, Duration.ZERO, 0, 0);
        provider = GkeClusterProviders.grpc(new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT, null));
        gke = ClusterManagerClient.create(ClusterManagerSettings.newBuilder()
                .setEndpoint(simulator.grpcTarget())
                .setCredentialsProvider(NoCredentialsProvider.create())
                .setTransportChannelProvider(InstantiatingGrpcChannelProvider.newBuilder()
                        .setEndpoint(simulator.grpcTarget()).setChannelConfigurator(ManagedChannelBuilder::usePlaintext).build())
                .build());
    }

    @AfterEach
    void stop() {
        gke.close();
        provider.close();
        simulator.close();
    }

    @Test
    void aStandardRegionalClusterAndItsPools() {
        ClusterLocator at = new ClusterLocator("tenant-prj", "europe-west4", ProviderNames.clusterName(ID));
        provider.createCluster(new ClusterSpec(at, ID, ClusterMode.STANDARD, ReleaseChannel.STABLE, "1.32", List.of("10.0.0.0/8"), true,
                "vpc-1", "sub-1"));
        provider.createNodePool(at, new NodePoolSpec("gpu", "a3-highgpu-8g", 2, new Autoscaling(0, 4), 500, "pd-ssd", true,
                new Accelerators("nvidia-h100-80gb", 8), List.of("europe-west4-a", "europe-west4-b"), Map.of("team", "ml"),
                List.of(new Taint("nvidia.com/gpu", null, TaintEffect.NoExecute))));

        Cluster cluster = gke.getCluster("projects/tenant-prj/locations/europe-west4/clusters/" + at.name());
        assertThat(cluster.getName()).isEqualTo("bc-k-01hzx8k3v4w5y6z7a8b9c0d1");
        assertThat(cluster.getResourceLabelsMap()).containsExactly(Map.entry("better-compute-cluster", ID));
        assertThat(cluster.getLocation()).isEqualTo("europe-west4");
        assertThat(cluster.getLocationsList()).containsExactly("europe-west4-a", "europe-west4-b", "europe-west4-c");
        assertThat(cluster.getAutopilot().getEnabled()).isFalse();
        assertThat(cluster.getIdentityServiceConfig().getEnabled()).as("Identity Service for GKE, to trust the platform's ID tokens").isTrue();
        assertThat(cluster.getReleaseChannel().getChannel()).isEqualTo(com.google.container.v1.ReleaseChannel.Channel.STABLE);
        assertThat(cluster.getCurrentMasterVersion()).isEqualTo("1.32.9-gke.1108000");
        assertThat(cluster.getNetwork()).isEqualTo("vpc-1");
        assertThat(cluster.getSubnetwork()).isEqualTo("sub-1");
        assertThat(cluster.getNetworkConfig().getDefaultEnablePrivateNodes()).isTrue();
        MasterAuthorizedNetworksConfig authorized = cluster.getControlPlaneEndpointsConfig().getIpEndpointsConfig().getAuthorizedNetworksConfig();
        assertThat(authorized.getEnabled()).isTrue();
        assertThat(authorized.getCidrBlocksList()).extracting(MasterAuthorizedNetworksConfig.CidrBlock::getCidrBlock).containsExactly("10.0.0.0/8");

        NodePool initial = cluster.getNodePools(0);
        assertThat(initial.getName()).isEqualTo(ClusterProvider.INITIAL_NODE_POOL);
        assertThat(initial.getInitialNodeCount()).isEqualTo(1);
        assertThat(initial.getConfig().getMachineType()).isEqualTo("e2-small");

        NodePool gpu = cluster.getNodePools(1);
        assertThat(gpu.getName()).isEqualTo("gpu");
        assertThat(gpu.getInitialNodeCount()).isEqualTo(2);
        assertThat(gpu.getAutoscaling().getEnabled()).isTrue();
        assertThat(gpu.getAutoscaling().getMinNodeCount()).isZero();
        assertThat(gpu.getAutoscaling().getMaxNodeCount()).isEqualTo(4);
        assertThat(gpu.getLocationsList()).containsExactly("europe-west4-a", "europe-west4-b");
        assertThat(gpu.getConfig().getMachineType()).isEqualTo("a3-highgpu-8g");
        assertThat(gpu.getConfig().getDiskSizeGb()).isEqualTo(500);
        assertThat(gpu.getConfig().getDiskType()).isEqualTo("pd-ssd");
        assertThat(gpu.getConfig().getSpot()).isTrue();
        assertThat(gpu.getConfig().getAccelerators(0).getAcceleratorType()).isEqualTo("nvidia-h100-80gb");
        assertThat(gpu.getConfig().getAccelerators(0).getAcceleratorCount()).isEqualTo(8);
        assertThat(gpu.getConfig().getLabelsMap()).containsExactly(Map.entry("team", "ml"));
        assertThat(gpu.getConfig().getTaintsList()).extracting(NodeTaint::getKey, NodeTaint::getValue, NodeTaint::getEffect)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("nvidia.com/gpu", "", NodeTaint.Effect.NO_EXECUTE));
        assertThat(gpu.getManagement().getAutoRepair()).isTrue();
    }

    @Test
    void anAutopilotClusterWithoutAChannelGetsGkesDefault() {
        ClusterLocator at = new ClusterLocator("tenant-prj", "us-east1", ProviderNames.clusterName(ID));
        provider.createCluster(new ClusterSpec(at, ID, ClusterMode.AUTOPILOT, null, null, List.of(), false, null, null));
        Cluster cluster = gke.getCluster("projects/tenant-prj/locations/us-east1/clusters/" + at.name());
        assertThat(cluster.getAutopilot().getEnabled()).isTrue();
        assertThat(cluster.getIdentityServiceConfig().getEnabled()).as("Identity Service for GKE is Standard only").isFalse();
        assertThat(cluster.getNodePoolsList()).isEmpty();
        assertThat(cluster.getReleaseChannel().getChannel()).isEqualTo(com.google.container.v1.ReleaseChannel.Channel.REGULAR);
        assertThat(cluster.getCurrentNodeVersion()).isEqualTo(cluster.getCurrentMasterVersion());
    }

    @Test
    void aStandardClusterWithoutAChannelIsInNone() {
        ClusterLocator at = new ClusterLocator("tenant-prj", "us-east1-b", ProviderNames.clusterName(ID));
        provider.createCluster(new ClusterSpec(at, ID, ClusterMode.STANDARD, null, null, List.of(), false, null, null));
        assertThat(provider.observe(at).releaseChannel()).isNull();
        assertThat(gke.getCluster("projects/tenant-prj/locations/us-east1-b/clusters/" + at.name()).getReleaseChannel().getChannel())
                .isEqualTo(com.google.container.v1.ReleaseChannel.Channel.UNSPECIFIED);
    }

    @Test
    void aStandardClusterCreatedWithoutIdentityServiceAsksForNone() {
        ClusterLocator at = new ClusterLocator("tenant-prj", "us-east1-b", ProviderNames.clusterName(ID));
        provider.createCluster(new ClusterSpec(at, ID, ClusterMode.STANDARD, null, null, List.of(), false, null, null, false));
        assertThat(gke.getCluster("projects/tenant-prj/locations/us-east1-b/clusters/" + at.name()).hasIdentityServiceConfig()).isFalse();
    }

    /**
     * Which refusals of a create are GKE refusing Identity Service for GKE: a refusal of the request as it is (after the
     * kinds GKE's codes map to) whose message names it, in words or as its field; nothing else, whatever its message.
     */
    @ParameterizedTest(name = "{0} \"{1}\" → {2}")
    @CsvSource(delimiter = '|', textBlock = """
            FAILED_PRECONDITION | Identity Service for GKE is not available to the organization of project "p".  | true
            INVALID             | Identity Service for GKE is not supported on Autopilot clusters.               | true
            INVALID             | Invalid value for field "cluster.identity_service_config.enabled": true.       | true
            FAILED_PRECONDITION | identityServiceConfig cannot be enabled for this organization                  | true
            FAILED_PRECONDITION | Enable anthosidentityservice.googleapis.com in the project first.              | true
            INVALID             | Master version "1.20" is unsupported.                                          | false
            INVALID             | Workload Identity is not enabled for this cluster.                             | false
            FAILED_PRECONDITION | Cluster is running incompatible operation.                                     | false
            QUOTA               | Insufficient quota to satisfy the request (Identity Service pods).             | false
            UNAVAILABLE         | Identity Service backend is unavailable, try again.                            | false
            PERMISSION_DENIED   | Permission denied on Identity Service for GKE.                                 | false
            ALREADY_EXISTS      | Already exists: identity service.                                              | false
            """)
    void aRefusalOfCreateIsAboutIdentityServiceOnlyWhenGkeSaysSo(ProviderException.Kind kind, String message, boolean aboutIt) {
        assertThat(GkeClusterProvider.refusesIdentityService(new ProviderException(kind, message))).isEqualTo(aboutIt);
    }
}
