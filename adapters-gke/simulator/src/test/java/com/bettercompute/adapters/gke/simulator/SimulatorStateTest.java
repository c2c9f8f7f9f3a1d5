package com.bettercompute.adapters.gke.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.application.fakes.MutableClock;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterUpdate;
import com.google.container.v1.CreateClusterRequest;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import com.google.container.v1.ReleaseChannel;
import com.google.container.v1.SetNodePoolSizeRequest;
import com.google.container.v1.UpdateClusterRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator restarted on its state directory serves the world it left: the same clusters, node pools
 * and operations, and operations that were running finish by the clock after the restart.
 */
class SimulatorStateTest {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private static final String PARENT = "projects/p1/locations/us-central1-a";

    @TempDir
    Path state;

    private final MutableClock clock = new MutableClock();
    private GkeSimulator simulator;
    private ClusterManagerClient client;

    @AfterEach
    void stop() {
        stopSimulator();
    }

    private void startSimulator(Path directory) {
        simulator = GkeSimulator.start(clock, OPERATION, 0, 0, Pause.NONE, directory);
        try {
            client = PlaintextClusterManager.of(simulator);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void stopSimulator() {
        if (client != null) {
            client.close();
            client = null;
        }
        if (simulator != null) {
            simulator.close();
            simulator = null;
        }
    }

    private void restart() {
        stopSimulator();
        startSimulator(state);
    }

    private Operation create(String name, int nodes) {
        return client.createCluster(CreateClusterRequest.newBuilder().setParent(PARENT)
                .setCluster(Cluster.newBuilder().setName(name).setInitialNodeCount(nodes)).build());
    }

    private List<Cluster> clusters() {
        return client.listClusters(PARENT).getClustersList();
    }

    private List<Operation> operations() {
        return client.listOperations(PARENT).getOperationsList();
    }

    private Map<String, Cluster.Status> statuses() {
        return clusters().stream().collect(Collectors.toMap(Cluster::getName, Cluster::getStatus));
    }

    @Test
    void aRestartedSimulatorServesTheSameClustersNodePoolsAndOperations() {
        startSimulator(state);
        create("steady", 2);
        create("doomed", 1);
        clock.advance(OPERATION);
        client.createNodePool(CreateNodePoolRequest.newBuilder().setParent(PARENT + "/clusters/steady")
                .setNodePool(NodePool.newBuilder().setName("gpu").setInitialNodeCount(3)).build());
        client.deleteCluster(PARENT + "/clusters/doomed");
        create("young", 1);
        List<Cluster> before = clusters();
        List<Operation> operationsBefore = operations();

        restart();

        assertThat(clusters()).isEqualTo(before);
        assertThat(operations()).isEqualTo(operationsBefore);
        assertThat(statuses()).containsEntry("steady", Cluster.Status.RUNNING).containsEntry("doomed", Cluster.Status.STOPPING)
                .containsEntry("young", Cluster.Status.PROVISIONING);
    }

    @Test
    void operationsRunningAtTheRestartFinishByTheClockAfterIt() {
        startSimulator(state);
        create("c1", 1);
        create("gone", 1);
        clock.advance(OPERATION);
        client.setNodePoolSize(SetNodePoolSizeRequest.newBuilder().setName(PARENT + "/clusters/c1/nodePools/default-pool").setNodeCount(4).build());
        client.deleteCluster(PARENT + "/clusters/gone");
        create("fresh", 1);

        restart();
        assertThat(client.getNodePool(PARENT + "/clusters/c1/nodePools/default-pool").getStatus()).isEqualTo(NodePool.Status.RECONCILING);
        clock.advance(OPERATION);

        assertThat(statuses()).isEqualTo(Map.of("c1", Cluster.Status.RUNNING, "fresh", Cluster.Status.RUNNING));
        NodePool pool = client.getNodePool(PARENT + "/clusters/c1/nodePools/default-pool");
        assertThat(pool.getInitialNodeCount()).isEqualTo(4);
        assertThat(pool.getStatus()).isEqualTo(NodePool.Status.RUNNING);
        assertThat(operations()).allMatch(o -> o.getStatus() == Operation.Status.DONE);

        restart();
        assertThat(statuses()).isEqualTo(Map.of("c1", Cluster.Status.RUNNING, "fresh", Cluster.Status.RUNNING));
    }

    @Test
    void aClusterChangeRunningAtTheRestartIsAppliedAfterIt() {
        startSimulator(state);
        create("c1", 1);
        clock.advance(OPERATION);
        client.updateCluster(UpdateClusterRequest.newBuilder().setName(PARENT + "/clusters/c1").setUpdate(ClusterUpdate.newBuilder()
                .setDesiredReleaseChannel(ReleaseChannel.newBuilder().setChannel(ReleaseChannel.Channel.RAPID))).build());

        restart();
        clock.advance(OPERATION);

        Cluster c1 = client.getCluster(PARENT + "/clusters/c1");
        assertThat(c1.getReleaseChannel().getChannel()).isEqualTo(ReleaseChannel.Channel.RAPID);
        assertThat(c1.getStatus()).isEqualTo(Cluster.Status.RUNNING);
    }

    @Test
    void everyAnsweredChangeIsAlreadyInTheStateFile() throws IOException {
        startSimulator(state);
        Operation op = create("c1", 1);
        Path copy = Files.createDirectories(state.resolveSibling(state.getFileName() + "-copy"));
        Files.copy(state.resolve(StateLog.FILE), copy.resolve(StateLog.FILE));
        stopSimulator();

        startSimulator(copy);
        assertThat(statuses()).containsOnlyKeys("c1");
        assertThat(client.getOperation(PARENT + "/operations/" + op.getName()).getOperationType()).isEqualTo(Operation.Type.CREATE_CLUSTER);
    }

    @Test
    void aChangeTornByACrashIsDroppedAndTheRestKept() throws IOException {
        startSimulator(state);
        create("c1", 1);
        clock.advance(OPERATION);
        stopSimulator();
        // what a crash in the middle of an append leaves: a length that promises more than was written
        Files.write(state.resolve(StateLog.FILE), new byte[] {0, 0, 1, 0, 42, 42, 42}, StandardOpenOption.APPEND);

        startSimulator(state);
        assertThat(statuses()).isEqualTo(Map.of("c1", Cluster.Status.RUNNING));
        create("c2", 1);
        restart();
        assertThat(statuses()).containsOnlyKeys("c1", "c2");
    }

    @Test
    void namesAndIdsDoNotRepeatAfterARestart() {
        startSimulator(state);
        Operation first = create("c1", 1);
        String firstId = client.getCluster(PARENT + "/clusters/c1").getId();
        clock.advance(OPERATION);
        client.deleteCluster(PARENT + "/clusters/c1");
        clock.advance(OPERATION);

        restart();
        Operation second = create("c1", 1);

        assertThat(second.getName()).isNotEqualTo(first.getName());
        assertThat(client.getCluster(PARENT + "/clusters/c1").getId()).isNotEqualTo(firstId);
    }

    @Test
    void aSecondSimulatorOnTheSameDirectoryIsRefused() {
        startSimulator(state);
        assertThatThrownBy(() -> GkeSimulator.start(clock, OPERATION, 0, 0, Pause.NONE, state))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("in use by another GKE simulator");
    }
}
