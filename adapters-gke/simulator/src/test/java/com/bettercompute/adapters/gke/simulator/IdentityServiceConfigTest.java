package com.bettercompute.adapters.gke.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.application.fakes.MutableClock;
import com.google.api.gax.rpc.FailedPreconditionException;
import com.google.api.gax.rpc.InvalidArgumentException;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.Autopilot;
import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterUpdate;
import com.google.container.v1.CreateClusterRequest;
import com.google.container.v1.IdentityServiceConfig;
import com.google.container.v1.UpdateClusterRequest;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Identity Service for GKE as the container API carries it ({@code Cluster.identity_service_config},
 * {@code ClusterUpdate.desired_identity_service_config}): taken at create and by an update, reported back, told to the
 * cluster's Kubernetes API once the cluster runs, and refused for an Autopilot cluster (Standard clusters only) — and, under
 * the fault {@code refuseIdentityService}, for a Standard cluster too, as in an organization GKE does not offer it to.
 */
class IdentityServiceConfigTest {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private static final String PARENT = "projects/p1/locations/us-central1";

    private final MutableClock clock = new MutableClock();
    private GkeSimulator simulator;
    private ClusterManagerClient client;

    @BeforeEach
    void start() throws IOException {
        simulator = GkeSimulator.start(clock, OPERATION, 0, 0, Pause.NONE, null);
        client = PlaintextClusterManager.of(simulator);
    }

    @AfterEach
    void stop() {
        client.close();
        simulator.close();
    }

    private void create(Cluster.Builder cluster) {
        client.createCluster(CreateClusterRequest.newBuilder().setParent(PARENT).setCluster(cluster).build());
    }

    @Test
    void a_standard_cluster_created_with_it_reports_it_and_its_api_is_told_once_it_runs() {
        create(Cluster.newBuilder().setName("with").setInitialNodeCount(1)
                .setIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true)));
        create(Cluster.newBuilder().setName("without").setInitialNodeCount(1));

        assertThat(client.getCluster(PARENT + "/clusters/with").getIdentityServiceConfig().getEnabled()).isTrue();
        assertThat(simulator.identityService("p1", "us-central1", "with")).as("not running yet").isFalse();
        clock.advance(OPERATION);

        assertThat(simulator.identityService("p1", "us-central1", "with")).isTrue();
        assertThat(simulator.identityService("p1", "us-central1", "without")).isFalse();
        assertThat(client.getCluster(PARENT + "/clusters/without").getIdentityServiceConfig().getEnabled()).isFalse();
    }

    @Test
    void an_update_enables_it_when_its_operation_is_done() {
        create(Cluster.newBuilder().setName("later").setInitialNodeCount(1));
        clock.advance(OPERATION);

        client.updateCluster(UpdateClusterRequest.newBuilder().setName(PARENT + "/clusters/later").setUpdate(ClusterUpdate.newBuilder()
                .setDesiredIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true))).build());
        assertThat(client.getCluster(PARENT + "/clusters/later").getStatus()).isEqualTo(Cluster.Status.RECONCILING);
        clock.advance(OPERATION);

        Cluster later = client.getCluster(PARENT + "/clusters/later");
        assertThat(later.getIdentityServiceConfig().getEnabled()).isTrue();
        assertThat(later.getStatus()).isEqualTo(Cluster.Status.RUNNING);
        assertThat(simulator.identityService("p1", "us-central1", "later")).isTrue();
    }

    @Test
    void an_autopilot_cluster_takes_none() {
        assertThatThrownBy(() -> create(Cluster.newBuilder().setName("auto").setAutopilot(Autopilot.newBuilder().setEnabled(true))
                .setIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true))))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("Autopilot");

        create(Cluster.newBuilder().setName("auto").setAutopilot(Autopilot.newBuilder().setEnabled(true)));
        clock.advance(OPERATION);
        assertThatThrownBy(() -> client.updateCluster(UpdateClusterRequest.newBuilder().setName(PARENT + "/clusters/auto")
                .setUpdate(ClusterUpdate.newBuilder().setDesiredIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true)))
                .build())).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("Autopilot");
    }

    @Test
    void a_project_refused_it_gets_neither_a_standard_cluster_with_it_nor_the_update_and_creates_one_without() {
        simulator.refuseIdentityService("p1");
        assertThatThrownBy(() -> create(Cluster.newBuilder().setName("refused").setInitialNodeCount(1)
                .setIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true))))
                .isInstanceOf(FailedPreconditionException.class).hasMessageContaining("Identity Service for GKE is not available");
        assertThat(simulator.clusters()).as("nothing was created").isEmpty();

        create(Cluster.newBuilder().setName("refused").setInitialNodeCount(1));
        clock.advance(OPERATION);
        assertThat(client.getCluster(PARENT + "/clusters/refused").getIdentityServiceConfig().getEnabled()).isFalse();
        UpdateClusterRequest enable = UpdateClusterRequest.newBuilder().setName(PARENT + "/clusters/refused").setUpdate(ClusterUpdate.newBuilder()
                .setDesiredIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true))).build();
        assertThatThrownBy(() -> client.updateCluster(enable))
                .isInstanceOf(FailedPreconditionException.class).hasMessageContaining("Identity Service for GKE is not available");

        simulator.clearFaults();
        client.updateCluster(enable);
        clock.advance(OPERATION);
        assertThat(client.getCluster(PARENT + "/clusters/refused").getIdentityServiceConfig().getEnabled()).isTrue();
    }
}
