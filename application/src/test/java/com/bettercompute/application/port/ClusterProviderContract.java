package com.bettercompute.application.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ClusterProvider}, run against the in-memory fake and against
 * {@code GkeClusterProvider} on the GKE simulator over gRPC and over REST. A subclass gives a
 * fresh provider per test, a way to let operations finish, and three faults.
 */
public abstract class ClusterProviderContract {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    protected static final String PROJECT = "bc-contract";
    protected static final String ZONE = "us-central1-a";
    protected static final String REGION = "us-central1";

    /** The provider under test; the same instance for the whole test. */
    protected abstract ClusterProvider provider();

    /** Moves time past one operation's duration, so every operation started so far is done. */
    protected abstract void letOperationsFinish();

    /** Puts a running cluster under this name that does not carry our label. */
    protected abstract void createForeignCluster(ClusterLocator at);

    /** The next operation the provider starts ends in failure with this message. */
    protected abstract void failNextOperation(String message);

    /**
     * From now on the provider refuses Identity Service for GKE for Standard clusters of {@link #PROJECT} too (at create and
     * by update), as GKE does in an organization it does not offer it to.
     */
    protected abstract void refuseIdentityService();

    protected static String newClusterId() {
        return "kcl_" + String.format("%-26s", "c" + SEQUENCE.incrementAndGet()).replace(' ', 'z');
    }

    private static ClusterSpec standard(String clusterId, String location) {
        return new ClusterSpec(new ClusterLocator(PROJECT, location, ProviderNames.clusterName(clusterId)), clusterId, ClusterMode.STANDARD,
                ReleaseChannel.REGULAR, null, List.of(), false, null, null);
    }

    private static ClusterSpec autopilot(String clusterId) {
        return new ClusterSpec(new ClusterLocator(PROJECT, REGION, ProviderNames.clusterName(clusterId)), clusterId, ClusterMode.AUTOPILOT,
                null, null, List.of(), true, null, null);
    }

    /** Creates a Standard cluster and lets it come up. */
    private ClusterLocator runningStandard() {
        ClusterSpec spec = standard(newClusterId(), ZONE);
        provider().createCluster(spec);
        letOperationsFinish();
        assertThat(provider().observe(spec.at()).settled()).isTrue();
        return spec.at();
    }

    private static final NodePoolSpec GPU_POOL = new NodePoolSpec("gpu", "a3-highgpu-8g", 2, null, 200, "pd-ssd", true,
            new Accelerators("nvidia-h100-80gb", 8), List.of("us-central1-a"), Map.of("team", "ml"),
            List.of(new Taint("nvidia.com/gpu", "present", TaintEffect.NoSchedule)));

    @Test
    void aMissingClusterIsAbsentNotAnError() {
        ClusterObservation observation = provider().observe(new ClusterLocator(PROJECT, ZONE, "bc-k-nothinghere000000000000"));
        assertThat(observation.exists()).isFalse();
    }

    @Test
    void aStandardClusterIsBuiltInSteps() {
        String id = newClusterId();
        ClusterSpec spec = standard(id, ZONE);
        String creating = provider().createCluster(spec);

        ClusterObservation provisioning = provider().observe(spec.at());
        assertThat(provisioning.exists()).isTrue();
        assertThat(provisioning.clusterId()).isEqualTo(id);
        assertThat(provisioning.status()).isEqualTo(ClusterStatus.PROVISIONING);
        assertThat(provisioning.busy()).isTrue();
        assertThat(creating).isNotBlank();
        assertThat(provider().operation(spec.at(), creating)).isEqualTo(OperationStatus.RUNNING);
        assertThat(provisioning.nodePool(ClusterProvider.INITIAL_NODE_POOL)).isPresent();

        letOperationsFinish();
        ClusterObservation running = provider().observe(spec.at());
        assertThat(running.settled()).isTrue();
        assertThat(running.mode()).isEqualTo(ClusterMode.STANDARD);
        assertThat(running.endpoint()).isNotBlank();
        assertThat(new String(Base64.getDecoder().decode(running.caCertificate()), StandardCharsets.US_ASCII))
                .startsWith("-----BEGIN CERTIFICATE-----");
        assertThat(running.masterVersion()).isNotBlank();
        assertThat(running.nodeVersion()).isNotBlank();
        assertThat(running.releaseChannel()).isEqualTo(ReleaseChannel.REGULAR);
        assertThat(provider().operation(spec.at(), creating)).isEqualTo(OperationStatus.SUCCEEDED);

        String addingPool = provider().createNodePool(spec.at(), GPU_POOL);
        ClusterObservation adding = provider().observe(spec.at());
        assertThat(adding.nodePool("gpu").orElseThrow().status()).isEqualTo(NodePoolStatus.PROVISIONING);
        assertThat(adding.busy()).isTrue();
        assertThat(provider().operation(spec.at(), addingPool)).isEqualTo(OperationStatus.RUNNING);
        letOperationsFinish();
        assertThat(provider().operation(spec.at(), addingPool)).isEqualTo(OperationStatus.SUCCEEDED);
        NodePoolObservation gpu = provider().observe(spec.at()).nodePool("gpu").orElseThrow();
        assertThat(gpu.status()).isEqualTo(NodePoolStatus.RUNNING);
        assertThat(gpu.version()).isEqualTo(running.masterVersion());
        assertThat(gpu.machineType()).isEqualTo("a3-highgpu-8g");
        assertThat(gpu.nodeCount()).isEqualTo(2);
        assertThat(gpu.autoscaling()).isNull();
        assertThat(gpu.diskGiB()).isEqualTo(200);
        assertThat(gpu.diskType()).isEqualTo("pd-ssd");
        assertThat(gpu.spot()).isTrue();
        assertThat(gpu.accelerator()).isEqualTo(new Accelerators("nvidia-h100-80gb", 8));
        assertThat(gpu.zones()).containsExactly("us-central1-a");
        assertThat(gpu.labels()).containsEntry("team", "ml");
        assertThat(gpu.taints()).containsExactly(new Taint("nvidia.com/gpu", "present", TaintEffect.NoSchedule));

        provider().deleteNodePool(spec.at(), ClusterProvider.INITIAL_NODE_POOL);
        letOperationsFinish();
        ClusterObservation done = provider().observe(spec.at());
        assertThat(done.nodePools()).extracting(NodePoolObservation::name).containsExactly("gpu");
        assertThat(done.settled()).isTrue();
    }

    @Test
    void creatingOurClusterAgainAdoptsIt() {
        ClusterSpec spec = standard(newClusterId(), ZONE);
        provider().createCluster(spec);
        assertThat(provider().createCluster(spec)).as("an adopted cluster starts no operation").isNull();
        letOperationsFinish();
        assertThat(provider().createCluster(spec)).isNull();
        assertThat(provider().observe(spec.at()).settled()).isTrue();
    }

    @Test
    void aClusterWithOurNameButNotOurLabelIsNeverAdoptedNorDeleted() {
        ClusterSpec spec = standard(newClusterId(), ZONE);
        createForeignCluster(spec.at());

        assertThat(provider().observe(spec.at()).clusterId()).isNull();
        assertThatThrownBy(() -> provider().createCluster(spec))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.FOREIGN));
        assertThatThrownBy(() -> provider().deleteCluster(spec.at()))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.FOREIGN));
        letOperationsFinish();
        assertThat(provider().observe(spec.at()).exists()).isTrue();
    }

    @Test
    void anAutopilotClusterHasNoPoolsToManage() {
        ClusterSpec spec = autopilot(newClusterId());
        provider().createCluster(spec);
        letOperationsFinish();
        ClusterObservation running = provider().observe(spec.at());
        assertThat(running.settled()).isTrue();
        assertThat(running.mode()).isEqualTo(ClusterMode.AUTOPILOT);
        assertThat(running.releaseChannel()).isEqualTo(ReleaseChannel.REGULAR);
        assertThat(running.privateNodes()).isTrue();
        assertThat(running.nodeVersion()).isNotBlank();
        assertThatThrownBy(() -> provider().createNodePool(spec.at(), new NodePoolSpec("extra", "e2-standard-4", 1, null, 100, "pd-balanced", false, null, List.of(), Map.of(), List.of())))
                .isInstanceOf(ProviderException.class);
    }

    @Test
    void aRegionalClusterWithAuthorizedNetworksAndAPinnedMinor() {
        ServerConfig config = provider().serverConfig(PROJECT, REGION);
        String stableDefault = config.channels().get(ReleaseChannel.STABLE).defaultVersion();
        String minor = stableDefault.substring(0, stableDefault.indexOf('.', stableDefault.indexOf('.') + 1));
        String id = newClusterId();
        ClusterSpec spec = new ClusterSpec(new ClusterLocator(PROJECT, REGION, ProviderNames.clusterName(id)), id, ClusterMode.STANDARD,
                ReleaseChannel.STABLE, minor, List.of("10.0.0.0/8", "192.168.1.0/24"), true, null, null);
        provider().createCluster(spec);
        letOperationsFinish();
        ClusterObservation running = provider().observe(spec.at());
        assertThat(running.masterVersion()).startsWith(minor + ".");
        assertThat(running.releaseChannel()).isEqualTo(ReleaseChannel.STABLE);
        assertThat(running.authorizedNetworks()).containsExactly("10.0.0.0/8", "192.168.1.0/24");
        assertThat(running.privateNodes()).isTrue();
    }

    @Test
    void aVersionNotOfferedIsRefused() {
        String id = newClusterId();
        ClusterSpec spec = new ClusterSpec(new ClusterLocator(PROJECT, ZONE, ProviderNames.clusterName(id)), id, ClusterMode.STANDARD,
                ReleaseChannel.REGULAR, "1.10", List.of(), false, null, null);
        assertThatThrownBy(() -> provider().createCluster(spec))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID);
                    assertThat(e.getMessage()).contains("1.10");
                });
        assertThat(provider().observe(spec.at()).exists()).isFalse();
    }

    @Test
    void theControlPlaneUpgradesButNeverDowngrades() {
        List<String> regular = provider().serverConfig(PROJECT, ZONE).channels().get(ReleaseChannel.REGULAR).validVersions();
        String oldest = regular.get(regular.size() - 1);
        String newest = regular.get(0);
        String id = newClusterId();
        ClusterSpec spec = new ClusterSpec(new ClusterLocator(PROJECT, ZONE, ProviderNames.clusterName(id)), id, ClusterMode.STANDARD,
                ReleaseChannel.REGULAR, oldest, List.of(), false, null, null);
        provider().createCluster(spec);
        letOperationsFinish();
        assertThat(provider().observe(spec.at()).masterVersion()).isEqualTo(oldest);

        provider().updateCluster(spec.at(), new ClusterChange.MasterVersion(newest));
        ClusterObservation upgrading = provider().observe(spec.at());
        assertThat(upgrading.status()).isEqualTo(ClusterStatus.RECONCILING);
        assertThat(upgrading.busy()).isTrue();
        letOperationsFinish();
        ClusterObservation upgraded = provider().observe(spec.at());
        assertThat(upgraded.masterVersion()).isEqualTo(newest);
        assertThat(upgraded.nodeVersion()).isEqualTo(oldest);
        assertThat(upgraded.settled()).isTrue();

        assertThatThrownBy(() -> provider().updateCluster(spec.at(), new ClusterChange.MasterVersion(oldest)))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID));
        assertThatThrownBy(() -> provider().updateCluster(spec.at(), new ClusterChange.MasterVersion("1.10.1")))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID));
    }

    @Test
    void theChannelAndTheAuthorizedNetworksChangeInPlace() {
        ClusterLocator at = runningStandard();
        provider().updateCluster(at, new ClusterChange.Channel(ReleaseChannel.RAPID));
        letOperationsFinish();
        assertThat(provider().observe(at).releaseChannel()).isEqualTo(ReleaseChannel.RAPID);

        provider().updateCluster(at, new ClusterChange.AuthorizedNetworks(List.of("203.0.113.0/24")));
        letOperationsFinish();
        assertThat(provider().observe(at).authorizedNetworks()).containsExactly("203.0.113.0/24");

        provider().updateCluster(at, new ClusterChange.AuthorizedNetworks(List.of()));
        letOperationsFinish();
        assertThat(provider().observe(at).authorizedNetworks()).isEmpty();
    }

    @Test
    void identityServiceIsOnForAStandardClusterTurnsOffAndOnInPlaceAndIsRefusedOnAutopilot() {
        ClusterLocator at = runningStandard();
        assertThat(provider().observe(at).identityService()).as("set at creation").isTrue();

        provider().updateCluster(at, new ClusterChange.IdentityService(false));
        letOperationsFinish();
        assertThat(provider().observe(at).identityService()).isFalse();

        provider().updateCluster(at, new ClusterChange.IdentityService(true));
        ClusterObservation enabling = provider().observe(at);
        assertThat(enabling.status()).isEqualTo(ClusterStatus.RECONCILING);
        assertThat(enabling.identityService()).as("not before its operation is done").isFalse();
        assertThatThrownBy(() -> provider().updateCluster(at, new ClusterChange.IdentityService(true)))
                .as("one operation at a time").isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.FAILED_PRECONDITION));
        letOperationsFinish();
        ClusterObservation enabled = provider().observe(at);
        assertThat(enabled.identityService()).isTrue();
        assertThat(enabled.settled()).isTrue();

        ClusterSpec auto = autopilot(newClusterId());
        provider().createCluster(auto);
        letOperationsFinish();
        assertThat(provider().observe(auto.at()).identityService()).isFalse();
        assertThatThrownBy(() -> provider().updateCluster(auto.at(), new ClusterChange.IdentityService(true)))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID);
                    assertThat(e.getMessage()).contains("Autopilot");
                });
    }

    @Test
    void aCreateRefusedForIdentityServiceCreatesNothingAndTheSameClusterIsCreatedWithoutIt() {
        refuseIdentityService();
        ClusterSpec spec = standard(newClusterId(), ZONE);
        assertThatThrownBy(() -> provider().createCluster(spec)).isInstanceOfSatisfying(ProviderException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.IDENTITY_SERVICE_REFUSED);
            assertThat(e.getMessage()).contains("Identity Service for GKE");
        });
        assertThat(provider().observe(spec.at()).exists()).as("nothing was created").isFalse();

        ClusterSpec without = new ClusterSpec(spec.at(), spec.clusterId(), spec.mode(), spec.releaseChannel(), spec.version(),
                spec.authorizedNetworks(), spec.privateNodes(), spec.network(), spec.subnetwork(), false);
        assertThat(provider().createCluster(without)).isNotBlank();
        assertThat(provider().createCluster(without)).as("asked again (a crash after the call), it is adopted").isNull();
        letOperationsFinish();
        ClusterObservation running = provider().observe(spec.at());
        assertThat(running.settled()).isTrue();
        assertThat(running.clusterId()).isEqualTo(spec.clusterId());
        assertThat(running.identityService()).isFalse();
        assertThatThrownBy(() -> provider().updateCluster(spec.at(), new ClusterChange.IdentityService(true)))
                .as("refused by update too").isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.FAILED_PRECONDITION);
                    assertThat(e.getMessage()).contains("Identity Service for GKE");
                });

        ClusterSpec auto = autopilot(newClusterId());
        ClusterSpec autoWithIt = new ClusterSpec(auto.at(), auto.clusterId(), auto.mode(), auto.releaseChannel(), auto.version(),
                auto.authorizedNetworks(), auto.privateNodes(), auto.network(), auto.subnetwork(), true);
        assertThatThrownBy(() -> provider().createCluster(autoWithIt)).as("as GKE refuses it on Autopilot anywhere")
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.IDENTITY_SERVICE_REFUSED);
                    assertThat(e.getMessage()).contains("Autopilot");
                });
    }

    @Test
    void oneOperationAtATime() {
        ClusterSpec spec = standard(newClusterId(), ZONE);
        provider().createCluster(spec);
        assertThatThrownBy(() -> provider().createNodePool(spec.at(), GPU_POOL))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.FAILED_PRECONDITION);
                    assertThat(e.retryable()).isTrue();
                });
    }

    @Test
    void aPoolResizesAndAutoscales() {
        ClusterLocator at = runningStandard();
        String pool = ClusterProvider.INITIAL_NODE_POOL;
        provider().resizeNodePool(at, pool, 3);
        letOperationsFinish();
        assertThat(provider().observe(at).nodePool(pool).orElseThrow().nodeCount()).isEqualTo(3);

        provider().setNodePoolAutoscaling(at, pool, new Autoscaling(1, 5));
        letOperationsFinish();
        assertThat(provider().observe(at).nodePool(pool).orElseThrow().autoscaling()).isEqualTo(new Autoscaling(1, 5));

        provider().setNodePoolAutoscaling(at, pool, null);
        letOperationsFinish();
        assertThat(provider().observe(at).nodePool(pool).orElseThrow().autoscaling()).isNull();

        assertThatThrownBy(() -> provider().resizeNodePool(at, "nope", 1))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND));
    }

    @Test
    void aPoolsLabelsAndTaintsChangeInPlace() {
        ClusterLocator at = runningStandard();
        String pool = ClusterProvider.INITIAL_NODE_POOL;
        List<Taint> taints = List.of(new Taint("gpu", "true", TaintEffect.NoSchedule), new Taint("dedicated", null, TaintEffect.NoExecute));
        provider().updateNodePoolLabelsAndTaints(at, pool, Map.of("team", "ml", "tier", "gold"), taints);
        letOperationsFinish();
        NodePoolObservation seen = provider().observe(at).nodePool(pool).orElseThrow();
        assertThat(seen.labels()).isEqualTo(Map.of("team", "ml", "tier", "gold"));
        assertThat(seen.taints()).containsExactlyElementsOf(taints);

        provider().updateNodePoolLabelsAndTaints(at, pool, Map.of(), List.of());
        letOperationsFinish();
        seen = provider().observe(at).nodePool(pool).orElseThrow();
        assertThat(seen.labels()).isEmpty();
        assertThat(seen.taints()).isEmpty();

        assertThatThrownBy(() -> provider().updateNodePoolLabelsAndTaints(at, "nope", Map.of(), List.of()))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND));
    }

    @Test
    void creatingAPoolThatExistsIsASuccess() {
        ClusterLocator at = runningStandard();
        provider().createNodePool(at, GPU_POOL);
        letOperationsFinish();
        assertThatCode(() -> provider().createNodePool(at, GPU_POOL)).doesNotThrowAnyException();
    }

    @Test
    void deletingWhatIsGoneIsASuccess() {
        ClusterLocator missing = new ClusterLocator(PROJECT, ZONE, ProviderNames.clusterName(newClusterId()));
        assertThatCode(() -> provider().deleteCluster(missing)).doesNotThrowAnyException();
        assertThatCode(() -> provider().deleteNodePool(missing, "gpu")).doesNotThrowAnyException();

        ClusterLocator at = runningStandard();
        assertThatCode(() -> provider().deleteNodePool(at, "never-existed")).doesNotThrowAnyException();
        provider().deleteCluster(at);
        ClusterObservation stopping = provider().observe(at);
        assertThat(stopping.status()).isEqualTo(ClusterStatus.STOPPING);
        assertThatCode(() -> provider().deleteCluster(at)).doesNotThrowAnyException();
        letOperationsFinish();
        assertThat(provider().observe(at).exists()).isFalse();
        assertThatCode(() -> provider().deleteCluster(at)).doesNotThrowAnyException();
    }

    @Test
    void aFailedOperationIsReportedWithItsMessage() {
        ClusterSpec spec = standard(newClusterId(), ZONE);
        failNextOperation("Insufficient regional quota to satisfy request: resource \"CPUS\".");
        provider().createCluster(spec);
        letOperationsFinish();
        ClusterObservation failed = provider().observe(spec.at());
        assertThat(failed.status()).isEqualTo(ClusterStatus.ERROR);
        assertThat(failed.busy()).isFalse();
        assertThat(failed.statusMessage()).contains("Insufficient regional quota");
        assertThat(provider().operation(spec.at(), null).error())
                .as("a lost operation name: the cluster's latest operation, found in the list").contains("Insufficient regional quota");
        provider().deleteCluster(spec.at());
        letOperationsFinish();
        assertThat(provider().observe(spec.at()).exists()).isFalse();
    }

    @Test
    void anOperationIsAskedForByTheNameItsCallReturned() {
        ClusterLocator at = runningStandard();
        failNextOperation("The node pool could not be resized: quota.");
        String resizing = provider().resizeNodePool(at, ClusterProvider.INITIAL_NODE_POOL, 4);
        assertThat(provider().operation(at, resizing)).isEqualTo(OperationStatus.RUNNING);
        assertThat(provider().operation(at, null)).as("listed: one is running").isEqualTo(OperationStatus.RUNNING);
        letOperationsFinish();
        OperationStatus failed = provider().operation(at, resizing);
        assertThat(failed.done()).isTrue();
        assertThat(failed.error()).contains("could not be resized");
        assertThat(provider().observe(at).nodePool(ClusterProvider.INITIAL_NODE_POOL).orElseThrow().nodeCount()).isEqualTo(1);

        String resized = provider().resizeNodePool(at, ClusterProvider.INITIAL_NODE_POOL, 2);
        letOperationsFinish();
        assertThat(provider().operation(at, resized)).isEqualTo(OperationStatus.SUCCEEDED);
        assertThat(provider().operation(at, null)).as("listed: the latest succeeded").isEqualTo(OperationStatus.SUCCEEDED);
    }

    @Test
    void theServerConfigOffersVersionsPerChannel() {
        ServerConfig config = provider().serverConfig(PROJECT, ZONE);
        assertThat(config.validVersions()).contains(config.defaultVersion());
        assertThat(config.channels()).containsKeys(ReleaseChannel.RAPID, ReleaseChannel.REGULAR, ReleaseChannel.STABLE, ReleaseChannel.EXTENDED);
        config.channels().values().forEach(channel -> assertThat(channel.validVersions()).contains(channel.defaultVersion()));
    }
}
