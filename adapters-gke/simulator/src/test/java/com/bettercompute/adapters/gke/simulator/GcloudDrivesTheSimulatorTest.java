package com.bettercompute.adapters.gke.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.application.fakes.MutableClock;
import com.google.api.gax.rpc.NotFoundException;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.Cluster;
import com.google.container.v1.MasterAuthorizedNetworksConfig;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodeTaint;
import com.google.container.v1.ReleaseChannel;
import com.google.container.v1.ServerConfig;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * gcloud, as a user runs it, against the simulator's REST front end: a private CLOUDSDK_CONFIG and
 * the container endpoint overridden. Each command is checked for the state it leaves behind,
 * read through the Java client over gRPC. Operations take no time, except where a step runs
 * {@code --async} to see the state in between; then the test moves the clock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GcloudDrivesTheSimulatorTest {
    private static final String PROJECT = "gcloud-suite";
    private static final String ZONE = "us-central1-a";
    private static final String REGION = "us-central1";
    private static final Duration SLOW = Duration.ofSeconds(30);

    @TempDir
    Path home;
    private final MutableClock clock = new MutableClock();
    private GkeSimulator simulator;
    private ClusterManagerClient client;
    private String gcloud;

    @BeforeAll
    void start() throws IOException {
        gcloud = findOnPath("gcloud");
        Assumptions.assumeTrue(gcloud != null, "gcloud is not on PATH: the gcloud suite is skipped");
        simulator = GkeSimulator.start(clock, Duration.ZERO, 0, 0);
        client = PlaintextClusterManager.of(simulator);
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (simulator != null) {
            simulator.close();
        }
    }

    private static String findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            File candidate = new File(dir, name);
            if (candidate.isFile() && candidate.canExecute()) {
                return candidate.getAbsolutePath();
            }
        }
        return null;
    }

    private record Result(int exit, String out, String err) {
    }

    private Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(gcloud);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("CLOUDSDK_") || k.equals("KUBECONFIG") || k.startsWith("GOOGLE_"));
        env.put("CLOUDSDK_CONFIG", home.resolve("gcloud").toString());
        env.put("KUBECONFIG", home.resolve("kubeconfig").toString());
        env.put("CLOUDSDK_CORE_PROJECT", PROJECT);
        env.put("CLOUDSDK_CORE_DISABLE_PROMPTS", "1");
        env.put("CLOUDSDK_AUTH_ACCESS_TOKEN", "simulator-does-not-check");
        env.put("CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", simulator.restUrl() + "/");
        env.put("CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE", simulator.restUrl() + "/");
        env.put("CLOUDSDK_CORE_DISABLE_USAGE_REPORTING", "true");
        env.put("CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK", "true");
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("gcloud " + String.join(" ", args) + " did not finish: " + Files.readString(err));
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private String ok(String... args) throws IOException, InterruptedException {
        Result result = run(args);
        assertThat(result.exit()).as("gcloud %s failed:%n%s", String.join(" ", args), result.err()).isZero();
        return result.out();
    }

    private static <T extends Message.Builder> T parse(String json, T builder) throws InvalidProtocolBufferException {
        JsonFormat.parser().ignoringUnknownFields().merge(json, builder);
        return builder;
    }

    private Cluster cluster(String location, String name) {
        return client.getCluster("projects/" + PROJECT + "/locations/" + location + "/clusters/" + name);
    }

    private NodePool pool(String name) {
        return cluster(ZONE, "std").getNodePoolsList().stream().filter(p -> p.getName().equals(name)).findFirst().orElse(null);
    }

    @Test
    @Order(1)
    void getServerConfig() throws Exception {
        ServerConfig config = parse(ok("container", "get-server-config", "--zone", ZONE, "--format=json"), ServerConfig.newBuilder()).build();
        assertThat(config.getDefaultClusterVersion()).isEqualTo(Versions.ALL.get(2));
        assertThat(config.getValidMasterVersionsList()).containsExactlyElementsOf(Versions.ALL);
        assertThat(config.getChannelsList()).extracting(c -> c.getChannel())
                .contains(ReleaseChannel.Channel.RAPID, ReleaseChannel.Channel.REGULAR, ReleaseChannel.Channel.STABLE, ReleaseChannel.Channel.EXTENDED);
    }

    @Test
    @Order(2)
    void createAStandardClusterAsync() throws Exception {
        simulator.operationDuration(SLOW);
        ok("container", "clusters", "create", "std", "--zone", ZONE, "--num-nodes", "2", "--release-channel", "stable", "--async");
        assertThat(cluster(ZONE, "std").getStatus()).isEqualTo(Cluster.Status.PROVISIONING);
        clock.advance(SLOW);
        simulator.operationDuration(Duration.ZERO);
        Cluster std = cluster(ZONE, "std");
        assertThat(std.getStatus()).isEqualTo(Cluster.Status.RUNNING);
        assertThat(std.getReleaseChannel().getChannel()).isEqualTo(ReleaseChannel.Channel.STABLE);
        assertThat(std.getCurrentMasterVersion()).isEqualTo("1.32.9-gke.1108000");
        assertThat(std.getNodePoolsList()).extracting(NodePool::getName, NodePool::getInitialNodeCount).containsExactly(
                org.assertj.core.groups.Tuple.tuple("default-pool", 2));
    }

    @Test
    @Order(3)
    void createAnAutopilotCluster() throws Exception {
        ok("container", "clusters", "create-auto", "auto", "--region", REGION);
        Cluster auto = cluster(REGION, "auto");
        assertThat(auto.getAutopilot().getEnabled()).isTrue();
        assertThat(auto.getStatus()).isEqualTo(Cluster.Status.RUNNING);
        assertThat(auto.getReleaseChannel().getChannel()).isEqualTo(ReleaseChannel.Channel.REGULAR);
        assertThat(Files.readString(home.resolve("kubeconfig"))).contains("gke_" + PROJECT + "_" + REGION + "_auto");
    }

    @Test
    @Order(4)
    void listAndDescribe() throws Exception {
        assertThat(ok("container", "clusters", "list", "--format=value(name,location,status)").lines().toList())
                .containsExactlyInAnyOrder("std\t" + ZONE + "\tRUNNING", "auto\t" + REGION + "\tRUNNING");
        Cluster described = parse(ok("container", "clusters", "describe", "std", "--zone", ZONE, "--format=json"), Cluster.newBuilder()).build();
        assertThat(described.getName()).isEqualTo("std");
        assertThat(described.getEndpoint()).isNotEmpty();
        assertThat(described.getCurrentNodeVersion()).isEqualTo(described.getCurrentMasterVersion());
        assertThat(described.getMasterAuth().getClusterCaCertificate()).isNotEmpty();
    }

    @Test
    @Order(5)
    void createAndListNodePools() throws Exception {
        ok("container", "node-pools", "create", "gpu", "--cluster", "std", "--zone", ZONE, "--num-nodes", "1",
                "--machine-type", "a2-highgpu-1g", "--accelerator", "type=nvidia-tesla-a100,count=1", "--spot",
                "--node-taints", "nvidia.com/gpu=present:NoSchedule", "--node-labels", "team=ml", "--disk-size", "200");
        NodePool gpu = pool("gpu");
        assertThat(gpu.getStatus()).isEqualTo(NodePool.Status.RUNNING);
        assertThat(gpu.getConfig().getMachineType()).isEqualTo("a2-highgpu-1g");
        assertThat(gpu.getConfig().getAccelerators(0).getAcceleratorType()).isEqualTo("nvidia-tesla-a100");
        assertThat(gpu.getConfig().getSpot()).isTrue();
        assertThat(gpu.getConfig().getDiskSizeGb()).isEqualTo(200);
        assertThat(gpu.getConfig().getLabelsMap()).containsEntry("team", "ml");
        assertThat(gpu.getConfig().getTaintsList()).extracting(NodeTaint::getKey, NodeTaint::getEffect)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("nvidia.com/gpu", NodeTaint.Effect.NO_SCHEDULE));
        assertThat(ok("container", "node-pools", "list", "--cluster", "std", "--zone", ZONE, "--format=value(name)").lines().toList())
                .containsExactly("default-pool", "gpu");
    }

    @Test
    @Order(6)
    void resize() throws Exception {
        ok("container", "clusters", "resize", "std", "--node-pool", "gpu", "--num-nodes", "3", "--zone", ZONE);
        assertThat(pool("gpu").getInitialNodeCount()).isEqualTo(3);
    }

    @Test
    @Order(7)
    void upgradeTheMasterButNeverDowngrade() throws Exception {
        ok("container", "clusters", "upgrade", "std", "--master", "--cluster-version", "1.33", "--zone", ZONE);
        Cluster std = cluster(ZONE, "std");
        assertThat(std.getCurrentMasterVersion()).isEqualTo("1.33.4-gke.1245000");
        assertThat(std.getCurrentNodeVersion()).isEqualTo("1.32.9-gke.1108000");

        Result downgrade = run("container", "clusters", "upgrade", "std", "--master", "--cluster-version", "1.32.9-gke.1108000", "--zone", ZONE);
        assertThat(downgrade.exit()).isNotZero();
        assertThat(downgrade.err()).contains("code=400").contains("downgraded");
        Result unoffered = run("container", "clusters", "upgrade", "std", "--master", "--cluster-version", "1.34.1-gke.1829001", "--zone", ZONE);
        assertThat(unoffered.exit()).isNotZero();
        assertThat(unoffered.err()).contains("unsupported");
        assertThat(cluster(ZONE, "std").getCurrentMasterVersion()).isEqualTo("1.33.4-gke.1245000");
    }

    @Test
    @Order(8)
    void updateTheReleaseChannel() throws Exception {
        ok("container", "clusters", "update", "std", "--release-channel", "regular", "--zone", ZONE);
        assertThat(cluster(ZONE, "std").getReleaseChannel().getChannel()).isEqualTo(ReleaseChannel.Channel.REGULAR);
    }

    @Test
    @Order(9)
    void updateTheAuthorizedNetworks() throws Exception {
        ok("container", "clusters", "update", "std", "--enable-master-authorized-networks",
                "--master-authorized-networks", "10.0.0.0/8,192.168.0.0/16", "--zone", ZONE);
        Cluster std = cluster(ZONE, "std");
        for (MasterAuthorizedNetworksConfig config : List.of(std.getMasterAuthorizedNetworksConfig(),
                std.getControlPlaneEndpointsConfig().getIpEndpointsConfig().getAuthorizedNetworksConfig())) {
            assertThat(config.getEnabled()).isTrue();
            assertThat(config.getCidrBlocksList()).extracting(MasterAuthorizedNetworksConfig.CidrBlock::getCidrBlock)
                    .containsExactly("10.0.0.0/8", "192.168.0.0/16");
        }
    }

    @Test
    @Order(10)
    void deleteANodePool() throws Exception {
        ok("container", "node-pools", "delete", "gpu", "--cluster", "std", "--zone", ZONE);
        assertThat(pool("gpu")).isNull();
        assertThat(pool("default-pool")).isNotNull();
    }

    @Test
    @Order(11)
    void deleteTheClusters() throws Exception {
        simulator.operationDuration(SLOW);
        ok("container", "clusters", "delete", "std", "--zone", ZONE, "--async");
        assertThat(cluster(ZONE, "std").getStatus()).isEqualTo(Cluster.Status.STOPPING);
        clock.advance(SLOW);
        simulator.operationDuration(Duration.ZERO);
        ok("container", "clusters", "delete", "auto", "--region", REGION);
        for (String[] gone : new String[][] {{ZONE, "std"}, {REGION, "auto"}}) {
            try {
                cluster(gone[0], gone[1]);
                throw new AssertionError(gone[1] + " still exists");
            } catch (NotFoundException expected) {
                // gone, as it should be
            }
        }
        assertThat(ok("container", "clusters", "list", "--format=value(name)")).isBlank();
        Result missing = run("container", "clusters", "describe", "std", "--zone", ZONE);
        assertThat(missing.exit()).isNotZero();
        assertThat(missing.err()).contains("code=404");
    }
}
