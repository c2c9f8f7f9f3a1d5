package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Platform objects: what the market declares for a cluster, and when it is written, on in-memory ports. */
class KeepPlatformObjectsTest {
    final MarketWorld w = new MarketWorld();
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final KeepPlatformObjects keep = new KeepPlatformObjects(w.markets, new ClusterConnections(w.ports.clusters(),
            w.ports.catalog(), account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1))), cluster);

    void reachable(String clusterId) {
        ReachableClusters.reachable(w.ports, clusterId);
    }

    @Test
    void declares_a_flavor_per_node_class_sold_at_the_clusters_site_and_the_max_cluster_size() {
        Market market = w.markets.load();
        market.addPool(PoolId.parse("us-central1/a100-4x"), 4, Money.parse("0.80"));
        market.addPool(PoolId.parse("europe-west4/h100-8x"), 8, Money.parse("1.20"));
        market.addCluster("kcl_x", "acme", 48, null);

        var objects = KeepPlatformObjects.declared(market, "kcl_x", "us-central1");

        assertThat(objects.maxClusterGpus()).isEqualTo(48);
        assertThat(objects.nodeClasses()).extracting(NodeClass::name).containsExactlyInAnyOrder("h100-8x", "a100-4x");
        assertThat(objects.nodeClasses().get(0).nodeLabels()).containsEntry("nationalcompute.com/market-node", "true")
                .containsKey("nationalcompute.com/node-class");
    }

    @Test
    void the_clusters_admission_webhooks_are_declared_with_the_rest() {
        var webhooks = new com.bettercompute.application.port.AdmissionEndpoints.Webhooks(
                "https://platform.example/admission/x/t/validate", "https://platform.example/admission/x/t/mutate", "PEM");
        var endpoints = new com.bettercompute.application.port.AdmissionEndpoints() {
            @Override
            public java.util.Optional<Webhooks> webhooks(String clusterId) {
                return clusterId.equals(MarketWorld.ACME_TRAIN) ? java.util.Optional.of(webhooks) : java.util.Optional.empty();
            }

            @Override
            public boolean accepts(String clusterId, String token) {
                return false;
            }
        };
        KeepPlatformObjects withAdmission = new KeepPlatformObjects(w.markets, new ClusterConnections(w.ports.clusters(),
                w.ports.catalog(), account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1))), cluster,
                endpoints);
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, null, null, null));
        reachable(MarketWorld.ACME_TRAIN);

        assertThat(withAdmission.keep(MarketWorld.ACME_TRAIN)).isTrue();
        assertThat(cluster.ensured).last().satisfies(o -> assertThat(o.webhooks()).isEqualTo(webhooks));
    }

    @Test
    void writes_nothing_for_a_cluster_not_enrolled_or_not_reachable() {
        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isFalse();
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, null, null, null));
        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isFalse();

        assertThat(cluster.ensured).isEmpty();
    }

    @Test
    void an_enrolled_reachable_cluster_gets_its_objects_and_a_new_max_cluster_size_at_the_next_keep() {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, null, null, null));
        reachable(MarketWorld.ACME_TRAIN);

        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isTrue();
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, 128L, null, null));
        keep.keep(MarketWorld.ACME_TRAIN);

        assertThat(cluster.ensured).extracting(o -> o.maxClusterGpus()).containsExactly(64L, 128L);
        assertThat(cluster.ensured.get(0).nodeClasses()).containsExactly(new NodeClass("h100-8x",
                Map.of("nationalcompute.com/node-class", "h100-8x", "nationalcompute.com/market-node", "true")));
    }

    @Test
    void the_cpu_workers_nodes_get_the_cpu_role_and_a_replacement_node_gets_it_at_the_next_keep() {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, null, null, null));
        reachable(MarketWorld.ACME_TRAIN);
        cluster.node("gke-worker-0", "bc-cpu-worker", true);
        cluster.node("gke-gpu-0", "bc-m-abc", true);

        keep.keep(MarketWorld.ACME_TRAIN);
        assertThat(cluster.nodes.get("gke-worker-0").labels()).containsEntry("node-role.kubernetes.io/cpu", "")
                .containsEntry("cloud.google.com/gke-nodepool", "bc-cpu-worker");
        assertThat(cluster.nodes.get("gke-gpu-0").labels()).doesNotContainKey("node-role.kubernetes.io/cpu");
        int written = cluster.nodeWrites;

        keep.keep(MarketWorld.ACME_TRAIN);
        assertThat(cluster.nodeWrites).as("a labelled node is not written again").isEqualTo(written);

        // GKE repaired the node: a new one of the pool, without the label a kubelet cannot give itself
        cluster.nodes.remove("gke-worker-0");
        cluster.node("gke-worker-1", "bc-cpu-worker", false);
        keep.keep(MarketWorld.ACME_TRAIN);
        assertThat(cluster.nodes.get("gke-worker-1").labels()).containsEntry("node-role.kubernetes.io/cpu", "");
    }
}
