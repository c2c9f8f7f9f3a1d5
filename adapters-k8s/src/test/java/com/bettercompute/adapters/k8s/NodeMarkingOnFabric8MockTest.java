package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.ClusterNode;
import com.bettercompute.application.port.MarketClusterClient.Cordon;
import com.bettercompute.application.port.MarketClusterClient.NodeMarking;
import com.bettercompute.application.port.MarketClusterClient.NodeTaint;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API shapes of the node reads and writes of {@link Fabric8MarketClusterClient} on fabric8's CRUD mock:
 * labels, annotations, the market's taints beside a foreign one, the cordon. Not a Kubernetes test: no
 * scheduler reads them here.
 */
class NodeMarkingOnFabric8MockTest {
    static final NodeTaint GPU = new NodeTaint("nationalcompute.com/gpu-worker", "true", "NoSchedule");
    static final NodeTaint NOTICE = new NodeTaint("nationalcompute.com/preempting", "true", "NoSchedule");
    static final Set<String> OWNED = Set.of(GPU.key(), NOTICE.key());

    CrudMockCluster cluster;
    Fabric8MarketClusterClient client;

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8MarketClusterClient(5000, 60_000);
        cluster.admin().nodes().resource(new NodeBuilder().withNewMetadata().withName("gke-mk-0")
                .addToLabels("cloud.google.com/gke-nodepool", "mk-0123").endMetadata()
                .withNewSpec().addNewTaint().withKey("example.com/foreign").withValue("x").withEffect("NoExecute").endTaint().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    Node node() {
        return cluster.admin().nodes().withName("gke-mk-0").get();
    }

    @Test
    void lists_nodes_with_their_pool_label_and_ready() {
        List<ClusterNode> nodes = client.nodes(cluster.connection());

        assertThat(nodes).singleElement().satisfies(n -> {
            assertThat(n.labels()).containsEntry("cloud.google.com/gke-nodepool", "mk-0123");
            assertThat(n.ready()).isTrue();
            assertThat(n.unschedulable()).isFalse();
        });
    }

    @Test
    void marks_labels_and_the_owned_taints_keeping_a_foreign_taint_and_writes_nothing_when_it_holds() {
        NodeMarking granted = new NodeMarking(Map.of("nationalcompute.com/request", "r-1"), Set.of(), Map.of(), OWNED,
                List.of(GPU), Cordon.RELEASE);
        client.markNode(cluster.connection(), "gke-mk-0", granted);
        String version = node().getMetadata().getResourceVersion();
        client.markNode(cluster.connection(), "gke-mk-0", granted);

        assertThat(node().getMetadata().getResourceVersion()).isEqualTo(version);
        assertThat(node().getMetadata().getLabels()).containsEntry("nationalcompute.com/request", "r-1");
        assertThat(node().getSpec().getTaints()).extracting(t -> t.getKey())
                .containsExactlyInAnyOrder("example.com/foreign", GPU.key());
    }

    @Test
    void a_notice_cordons_and_taints_and_a_rescind_undoes_both() {
        client.markNode(cluster.connection(), "gke-mk-0", new NodeMarking(Map.of(), Set.of(),
                Map.of("marketplace.nationalcompute.com/preempt-at", "2026-03-01T12:01:00Z"), OWNED, List.of(GPU, NOTICE), Cordon.HOLD));
        assertThat(node().getSpec().getUnschedulable()).isTrue();
        assertThat(node().getSpec().getTaints()).extracting(t -> t.getKey()).contains(NOTICE.key());

        client.markNode(cluster.connection(), "gke-mk-0", new NodeMarking(Map.of(), Set.of("nationalcompute.com/request"),
                Map.of(), OWNED, List.of(GPU), Cordon.RELEASE));

        assertThat(node().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(node().getSpec().getTaints()).extracting(t -> t.getKey())
                .containsExactlyInAnyOrder("example.com/foreign", GPU.key());
    }

    @Test
    void the_market_lifts_only_its_own_marked_cordon_and_never_the_tenants() {
        NodeMarking serving = new NodeMarking(Map.of(), Set.of(), Map.of(), OWNED, List.of(GPU), Cordon.RELEASE);
        client.markNode(cluster.connection(), "gke-mk-0", new NodeMarking(Map.of(), Set.of(), Map.of(), OWNED,
                List.of(GPU, NOTICE), Cordon.HOLD));
        assertThat(node().getMetadata().getAnnotations()).containsEntry(Cordon.MARK, "true");
        client.markNode(cluster.connection(), "gke-mk-0", serving);
        assertThat(node().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(node().getMetadata().getAnnotations()).doesNotContainKey(Cordon.MARK);

        Node cordoned = node();
        cordoned.getSpec().setUnschedulable(true);
        cluster.admin().nodes().resource(cordoned).update();
        String version = node().getMetadata().getResourceVersion();
        client.markNode(cluster.connection(), "gke-mk-0", serving);

        assertThat(node().getSpec().getUnschedulable()).as("the tenant's kubectl cordon stays").isTrue();
        assertThat(node().getMetadata().getResourceVersion()).as("nothing written").isEqualTo(version);
    }

    @Test
    void a_node_that_is_gone_is_a_success() {
        client.markNode(cluster.connection(), "gke-gone", new NodeMarking(Map.of(), Set.of(), Map.of(), OWNED, List.of(), Cordon.RELEASE));

        assertThat(client.nodes(cluster.connection())).hasSize(1);
    }
}
