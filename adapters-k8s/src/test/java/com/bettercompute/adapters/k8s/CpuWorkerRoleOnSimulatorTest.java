package com.bettercompute.adapters.k8s;

import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.domain.cluster.CpuWorker;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CPU worker's role label as a contract on the simulated cluster, whose kubelets, as GKE's, cannot give their node
 * a {@code node-role.kubernetes.io/*} label: the platform finds the pool's nodes by GKE's node pool label and labels
 * them, leaving everything else on them, writes nothing the second time, and labels a node the pool gains later.
 */
class CpuWorkerRoleOnSimulatorTest {
    private static final String PROJECT = "prj";
    private static final String LOCATION = "us-central1-a";
    private static final Map<String, String> ROLE = Map.of(CpuWorker.ROLE_LABEL, "");

    private final MutableClock clock = new MutableClock();
    private final Map<String, SimulatedKubernetesApis.NodePool> pools = new ConcurrentHashMap<>();
    private SimulatedKubernetesApis apis;
    private Fabric8MarketClusterClient market;
    private ClusterConnection connection;
    private KubernetesClient k;

    @BeforeEach
    void start() {
        // the node config asks for the role too: a kubelet would not take it
        pools.put(CpuWorker.NAME, new SimulatedKubernetesApis.NodePool(1, Map.of(CpuWorker.ROLE_LABEL, "", "example.com/team", "a"),
                List.of(), 0, CpuWorker.MACHINE_TYPE));
        pools.put("bc-m-abc", new SimulatedKubernetesApis.NodePool(1, Map.of(), List.of(), 8, "a3-highgpu-8g"));
        apis = SimulatedKubernetesApis.start(clock, (p, l, c) -> "roles".equals(c) ? Map.copyOf(pools) : null);
        market = new Fabric8MarketClusterClient(30_000, 30_000);
        String endpoint = "https://" + apis.endpointFor(PROJECT, LOCATION, "roles");
        connection = new ClusterConnection(endpoint, apis.caCertificateBase64(), apis.adminToken());
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(endpoint).withCaCertData(apis.caCertificateBase64())
                .withOauthToken(apis.adminToken()).withRequestRetryBackoffLimit(0).build();
        k = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterEach
    void stop() {
        k.close();
        market.close();
        apis.close();
    }

    private List<Node> nodesOf(String pool) {
        return k.nodes().withLabel("cloud.google.com/gke-nodepool", pool).list().getItems();
    }

    @Test
    void the_cpu_workers_nodes_come_without_the_role_and_the_platform_labels_them_and_a_node_added_later() {
        assertThat(nodesOf(CpuWorker.NAME)).singleElement().satisfies(n -> assertThat(n.getMetadata().getLabels())
                .doesNotContainKey(CpuWorker.ROLE_LABEL).containsEntry("example.com/team", "a"));
        String worker = nodesOf(CpuWorker.NAME).get(0).getMetadata().getName();
        k.nodes().withName(worker).edit(n -> { n.getSpec().setUnschedulable(true); return n; });

        assertThat(market.labelPoolNodes(connection, CpuWorker.NAME, ROLE)).isEqualTo(1);

        Node labelled = k.nodes().withName(worker).get();
        assertThat(labelled.getMetadata().getLabels()).containsEntry(CpuWorker.ROLE_LABEL, "").containsEntry("example.com/team", "a");
        assertThat(labelled.getSpec().getUnschedulable()).as("a cordon someone set stays").isTrue();
        assertThat(nodesOf("bc-m-abc")).singleElement().satisfies(n -> assertThat(n.getMetadata().getLabels())
                .doesNotContainKey(CpuWorker.ROLE_LABEL));
        String version = labelled.getMetadata().getResourceVersion();
        assertThat(market.labelPoolNodes(connection, CpuWorker.NAME, ROLE)).as("nothing to write").isZero();
        assertThat(k.nodes().withName(worker).get().getMetadata().getResourceVersion()).isEqualTo(version);

        pools.put(CpuWorker.NAME, new SimulatedKubernetesApis.NodePool(2, Map.of(), List.of(), 0, CpuWorker.MACHINE_TYPE));
        apis.step();
        assertThat(nodesOf(CpuWorker.NAME)).filteredOn(n -> !n.getMetadata().getLabels().containsKey(CpuWorker.ROLE_LABEL)).hasSize(1);
        assertThat(market.labelPoolNodes(connection, CpuWorker.NAME, ROLE)).isEqualTo(1);
        assertThat(nodesOf(CpuWorker.NAME)).hasSize(2).allSatisfy(n -> assertThat(n.getMetadata().getLabels())
                .containsEntry(CpuWorker.ROLE_LABEL, ""));
    }
}
