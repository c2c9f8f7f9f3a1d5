package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.api.model.Node;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A simulated cluster's nodes read as GKE's do: the kubelet version is the pool's GKE version (what
 * {@code kubectl get nodes} shows beside {@code gcloud}'s node version), and the topology labels name the
 * cluster's region and, for a zonal cluster, its zone.
 */
class SimulatedNodesTest {

    @Test
    void a_nodes_kubelet_version_is_its_pools_gke_version_and_its_labels_name_region_and_zone() {
        try (SimulatedCluster.World world = new SimulatedCluster.World(new SimulatedKubernetesApis.Settings(Duration.ZERO, Duration.ofSeconds(5)));
             SimulatedCluster cluster = new SimulatedCluster(world)) {
            cluster.pools.put("gpu", new SimulatedKubernetesApis.NodePool(1, Map.of(), List.of(), 8, "a3-highgpu-8g", "1.33.5-gke.1080000"));
            world.apis.step();

            Node gpu = cluster.client.nodes().list().getItems().stream()
                    .filter(n -> "gpu".equals(n.getMetadata().getLabels().get(SimulatedKubernetesApis.NODE_POOL_LABEL)))
                    .findFirst().orElseThrow();
            Node cpu = cluster.client.nodes().list().getItems().stream()
                    .filter(n -> "cpu-worker".equals(n.getMetadata().getLabels().get(SimulatedKubernetesApis.NODE_POOL_LABEL)))
                    .findFirst().orElseThrow();

            assertThat(gpu.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.33.5-gke.1080000");
            assertThat(cpu.getStatus().getNodeInfo().getKubeletVersion()).as("a pool of no known version")
                    .isEqualTo(Discovery.KUBERNETES_VERSION);
            assertThat(gpu.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/region", "us-central1")
                    .containsEntry("topology.kubernetes.io/zone", SimulatedCluster.LOCATION);
        }
    }

    @Test
    void a_regional_clusters_nodes_carry_the_region_only() {
        assertThat(SimulatedKubernetesApis.topology("europe-west4"))
                .isEqualTo(Map.of("topology.kubernetes.io/region", "europe-west4"));
        assertThat(SimulatedKubernetesApis.topology("europe-west4-b"))
                .isEqualTo(Map.of("topology.kubernetes.io/region", "europe-west4", "topology.kubernetes.io/zone", "europe-west4-b"));
    }

    @Test
    void a_node_registers_without_the_role_labels_its_kubelet_may_not_give_itself_and_keeps_one_set_by_an_editor_of_nodes() {
        try (SimulatedCluster.World world = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
             SimulatedCluster cluster = new SimulatedCluster(world)) {
            cluster.pools.put("tools", new SimulatedKubernetesApis.NodePool(1, Map.of("node-role.kubernetes.io/tools", "",
                    "example.com/team", "a"), List.of(), 0, "e2-standard-4"));
            world.apis.step();
            Node tools = cluster.client.nodes().withLabel(SimulatedKubernetesApis.NODE_POOL_LABEL, "tools").list().getItems().get(0);

            assertThat(tools.getMetadata().getLabels()).containsEntry("example.com/team", "a").doesNotContainKey("node-role.kubernetes.io/tools");

            cluster.client.nodes().withName(tools.getMetadata().getName())
                    .edit(n -> { n.getMetadata().getLabels().put("node-role.kubernetes.io/tools", ""); return n; });
            world.apis.step();
            assertThat(cluster.client.nodes().withName(tools.getMetadata().getName()).get().getMetadata().getLabels())
                    .containsKey("node-role.kubernetes.io/tools");
        }
    }
}
