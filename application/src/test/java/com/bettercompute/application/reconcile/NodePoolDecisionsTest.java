package com.bettercompute.application.reconcile;

import com.bettercompute.application.nodepool.NodePoolEvents;
import com.bettercompute.domain.event.NodePoolEvent;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterStatus;
import com.bettercompute.application.port.NodePoolObservation;
import com.bettercompute.application.port.NodePoolStatus;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.TaintEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static com.bettercompute.application.reconcile.ClusterDeciderTest.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The reconciler's decisions about node pools changed after the cluster exists (issue 6), as tables. */
class NodePoolDecisionsTest {

    /** A ready standard cluster with pools gpu and cpu, the provider having them as created (2 nodes, no labels). */
    static Cluster readyCluster() {
        return wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY, "gpu", "cpu"), ClusterState.READY);
    }

    static ClusterObservation providerHas(List<NodePoolObservation> pools) {
        return new ClusterObservation(true, ID, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "10.0.0.1", "Q0E=", V1, V1, ReleaseChannel.REGULAR,
                List.of(), false, pools, true);
    }

    static NodePoolObservation observed(String name, int count, Autoscaling autoscaling, Map<String, String> labels, List<Taint> taints) {
        return new NodePoolObservation(name, NodePoolStatus.RUNNING, V1, count, autoscaling, "a3-highgpu-8g", 100, "pd-balanced", false,
                null, List.of(), labels, taints, null);
    }

    static NodePoolObservation asCreated(String name) {
        return observed(name, 2, null, Map.of(), List.of());
    }

    /** The cluster with the named pool's spec changed by the tenant: the pool updating, the cluster too. */
    static Cluster changed(Cluster c, String pool, UnaryOperator<NodePoolSpec> change) {
        List<NodePool> pools = new ArrayList<>();
        for (NodePool p : c.nodePools()) {
            pools.add(p.spec().name().equals(pool) ? p.withSpec(change.apply(p.spec()), ClusterState.UPDATING, null, NOW) : p);
        }
        return c.toBuilder().nodePools(pools).state(ClusterState.UPDATING).build();
    }

    static NodePoolSpec spec(NodePoolSpec s, int count, com.bettercompute.domain.cluster.Autoscaling a, Map<String, String> labels,
                             List<com.bettercompute.domain.cluster.Taint> taints) {
        return new NodePoolSpec(s.name(), s.machineType(), count, a, s.diskGiB(), s.diskType(), s.spot(), s.accelerators(), s.zones(), labels, taints);
    }

    static List<Arguments> differences() {
        var gpuTaint = new com.bettercompute.domain.cluster.Taint("gpu", null, TaintEffect.NoSchedule);
        return List.of(
                arguments("a resize", (UnaryOperator<NodePoolSpec>) s -> spec(s, 5, null, Map.of(), List.of()),
                        asCreated("cpu"), new ProviderAction.ResizeNodePool("cpu", 5)),
                arguments("autoscaling turned on", (UnaryOperator<NodePoolSpec>) s -> spec(s, 2, new com.bettercompute.domain.cluster.Autoscaling(1, 4), Map.of(), List.of()),
                        asCreated("cpu"), new ProviderAction.SetAutoscaling("cpu", new Autoscaling(1, 4))),
                arguments("autoscaling turned on with another count: the provider sizes it", (UnaryOperator<NodePoolSpec>) s -> spec(s, 7, new com.bettercompute.domain.cluster.Autoscaling(1, 4), Map.of(), List.of()),
                        observed("cpu", 2, new Autoscaling(1, 4), Map.of(), List.of()), null),
                arguments("autoscaling bounds changed", (UnaryOperator<NodePoolSpec>) s -> spec(s, 2, new com.bettercompute.domain.cluster.Autoscaling(2, 8), Map.of(), List.of()),
                        observed("cpu", 2, new Autoscaling(1, 4), Map.of(), List.of()), new ProviderAction.SetAutoscaling("cpu", new Autoscaling(2, 8))),
                arguments("autoscaling turned off before a resize", (UnaryOperator<NodePoolSpec>) s -> spec(s, 3, null, Map.of(), List.of()),
                        observed("cpu", 2, new Autoscaling(1, 4), Map.of(), List.of()), new ProviderAction.SetAutoscaling("cpu", null)),
                arguments("labels", (UnaryOperator<NodePoolSpec>) s -> spec(s, 2, null, Map.of("team", "ml"), List.of()),
                        asCreated("cpu"), new ProviderAction.SetLabelsAndTaints("cpu", Map.of("team", "ml"), List.of())),
                arguments("taints", (UnaryOperator<NodePoolSpec>) s -> spec(s, 2, null, Map.of(), List.of(gpuTaint)),
                        asCreated("cpu"), new ProviderAction.SetLabelsAndTaints("cpu", Map.of(), List.of(gpuTaint))),
                arguments("labels removed", (UnaryOperator<NodePoolSpec>) s -> spec(s, 2, null, Map.of(), List.of()),
                        observed("cpu", 2, null, Map.of("team", "ml"), List.of()), new ProviderAction.SetLabelsAndTaints("cpu", Map.of(), List.of())),
                arguments("the size before labels", (UnaryOperator<NodePoolSpec>) s -> spec(s, 4, null, Map.of("team", "ml"), List.of()),
                        asCreated("cpu"), new ProviderAction.ResizeNodePool("cpu", 4)),
                arguments("nothing: the provider has it", (UnaryOperator<NodePoolSpec>) s -> spec(s, 4, null, Map.of("team", "ml"), List.of(gpuTaint)),
                        observed("cpu", 4, null, Map.of("team", "ml"), List.of(new Taint("gpu", "", TaintEffect.NoSchedule))), null));
    }

    @ParameterizedTest(name = "{0}: {3}")
    @MethodSource("differences")
    void a_changed_pool_gets_one_in_place_call(String what, UnaryOperator<NodePoolSpec> change, NodePoolObservation cpuAtProvider,
                                               ProviderAction expected) {
        Cluster c = changed(readyCluster(), "cpu", change);
        Decided d = decide(c, providerHas(List.of(asCreated("gpu"), cpuAtProvider)), AT, NOW);
        assertThat(d.action()).isEqualTo(expected);
        if (d.acts()) {
            assertThat(d.next().state()).isEqualTo(ClusterState.UPDATING);
            assertThat(d.next().progress().pendingAction()).isEqualTo(expected.label());
            assertThat(pool(d.next(), "cpu").state()).isEqualTo(ClusterState.UPDATING);
        } else {
            // done: the pool and the cluster are ready again, and both say so
            assertThat(pool(d.next(), "cpu").state()).isEqualTo(ClusterState.READY);
            assertThat(d.next().state()).isEqualTo(ClusterState.READY);
            assertThat(d.events()).containsExactly("kubernetes.cluster.updated");
            assertThat(types(NodePoolEvents.transitions(c, d.next(), NOW))).containsExactly("kubernetes.nodepool.updated");
        }
    }

    @Test
    void after_a_crash_the_saved_intent_tells_a_change_the_provider_made_from_one_it_did_not() {
        Cluster c = intent(changed(readyCluster(), "cpu", s -> spec(s, 5, null, Map.of(), List.of())), "resize-node-pool cpu 5");
        // the provider did it before the crash: nothing to do again
        Decided done = decide(c, providerHas(List.of(asCreated("gpu"), observed("cpu", 5, null, Map.of(), List.of()))), AT, NOW);
        assertThat(done.acts()).isFalse();
        assertThat(done.next().state()).isEqualTo(ClusterState.READY);
        // asked, the provider finished, and it is still not so: the operation failed
        Decided failed = decide(c, providerHas(List.of(asCreated("gpu"), asCreated("cpu"))), AT, NOW).then(OperationStatus.SUCCEEDED);
        assertThat(failed.acts()).isFalse();
        assertThat(failed.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(failed.events()).containsExactly("kubernetes.cluster.error");
        assertThat(pool(failed.next(), "cpu").state()).isEqualTo(ClusterState.ERROR);
        assertThat(types(NodePoolEvents.transitions(c, failed.next(), NOW))).containsExactly("kubernetes.nodepool.error");
    }

    @Test
    void a_pool_drifted_at_the_provider_is_put_back_and_reads_updating_meanwhile() {
        Cluster c = readyCluster();
        Decided d = decide(c, providerHas(List.of(asCreated("gpu"), observed("cpu", 9, null, Map.of(), List.of()))), AT, NOW);
        assertThat(d.action()).isEqualTo(new ProviderAction.ResizeNodePool("cpu", 2));
        assertThat(pool(d.accepted().next(), "cpu").state()).isEqualTo(ClusterState.UPDATING);
    }

    @Test
    void a_removed_pool_is_deleted_at_the_provider_then_marked_deleted() {
        Cluster c = readyCluster();
        List<NodePool> pools = c.nodePools().stream()
                .map(p -> p.spec().name().equals("cpu") ? p.withState(ClusterState.DELETING, null, NOW) : p).toList();
        Cluster removing = c.toBuilder().nodePools(pools).state(ClusterState.UPDATING).build();

        Decided delete = decide(removing, providerHas(List.of(asCreated("gpu"), asCreated("cpu"))), AT, NOW);
        assertThat(delete.action()).isEqualTo(new ProviderAction.DeleteNodePool("cpu"));
        assertThat(delete.next().state()).isEqualTo(ClusterState.UPDATING);
        assertThat(pool(delete.next(), "cpu").state()).isEqualTo(ClusterState.DELETING);

        NodePoolObservation stopping = new NodePoolObservation("cpu", NodePoolStatus.STOPPING, V1, 2, null, "a3-highgpu-8g", 100,
                "pd-balanced", false, null, List.of(), Map.of(), List.of(), null);
        ClusterObservation busy = new ClusterObservation(true, ID, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "10.0.0.1", "Q0E=", V1, V1,
                ReleaseChannel.REGULAR, List.of(), false, List.of(asCreated("gpu"), stopping), true);
        Decided waiting = decide(delete.next(), busy, AT, NOW);
        assertThat(waiting.acts()).isFalse();
        assertThat(pool(waiting.next(), "cpu").state()).isEqualTo(ClusterState.DELETING);

        Decided gone = decide(delete.next(), providerHas(List.of(asCreated("gpu"))), AT, NOW);
        assertThat(gone.acts()).isFalse();
        assertThat(pool(gone.next(), "cpu").state()).isEqualTo(ClusterState.DELETED);
        assertThat(gone.next().nodePools()).hasSize(2);
        assertThat(gone.next().state()).isEqualTo(ClusterState.READY);
        assertThat(gone.events()).containsExactly("kubernetes.cluster.updated");
        assertThat(types(NodePoolEvents.transitions(delete.next(), gone.next(), NOW))).containsExactly("kubernetes.nodepool.deleted");
    }

    @Test
    void a_pool_added_to_a_ready_cluster_is_created_and_its_first_ready_is_published() {
        Cluster c = readyCluster();
        NodePoolSpec spec = new NodePoolSpec("extra", "n2-standard-8", 1, null, 100, "pd-balanced", false, null, List.of(), Map.of(), List.of());
        List<NodePool> pools = new ArrayList<>(c.nodePools());
        pools.add(new NodePool("knp_extra", ID, spec, ClusterState.PENDING, null, 1, NOW, NOW, "fp"));
        Cluster adding = c.toBuilder().nodePools(pools).state(ClusterState.UPDATING).build();

        Decided create = decide(adding, providerHas(List.of(asCreated("gpu"), asCreated("cpu"))), AT, NOW);
        assertThat(create.action()).isInstanceOfSatisfying(ProviderAction.CreateNodePool.class, a -> assertThat(a.spec().name()).isEqualTo("extra"));
        Cluster provisioning = create.accepted().next();
        assertThat(pool(provisioning, "extra").state()).isEqualTo(ClusterState.PROVISIONING);

        NodePoolObservation extra = new NodePoolObservation("extra", NodePoolStatus.RUNNING, V1, 1, null, "n2-standard-8", 100, "pd-balanced",
                false, null, List.of(), Map.of(), List.of(), null);
        Decided done = decide(provisioning, providerHas(List.of(asCreated("gpu"), asCreated("cpu"), extra)), AT, NOW);
        assertThat(done.next().state()).isEqualTo(ClusterState.READY);
        assertThat(types(NodePoolEvents.transitions(provisioning, done.next(), NOW))).containsExactly("kubernetes.nodepool.ready");
    }

    @Test
    void a_change_the_provider_refuses_puts_the_pool_and_the_cluster_in_error() {
        Cluster c = changed(readyCluster(), "cpu", s -> spec(s, 50, null, Map.of(), List.of()));
        Decided d = decide(c, providerHas(List.of(asCreated("gpu"), asCreated("cpu"))), AT, NOW);
        Decided refused = d.refused(new ProviderException(ProviderException.Kind.QUOTA, "Insufficient quota."));
        assertThat(refused.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(pool(refused.next(), "cpu").state()).isEqualTo(ClusterState.ERROR);
        assertThat(pool(refused.next(), "cpu").message()).isEqualTo("Insufficient quota.");
        assertThat(pool(refused.next(), "gpu").state()).isEqualTo(ClusterState.READY);
        assertThat(types(NodePoolEvents.transitions(c, refused.next(), NOW))).containsExactly("kubernetes.nodepool.error");
    }

    @Test
    void a_pool_the_provider_reports_broken_shows_error_with_its_message() {
        Cluster c = readyCluster();
        NodePoolObservation broken = new NodePoolObservation("cpu", NodePoolStatus.ERROR, V1, 2, null, "a3-highgpu-8g", 100, "pd-balanced",
                false, null, List.of(), Map.of(), List.of(), "Nodes failed to register.");
        Decided d = decide(c, providerHas(List.of(asCreated("gpu"), broken)), AT, NOW);
        assertThat(d.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(pool(d.next(), "cpu").state()).isEqualTo(ClusterState.ERROR);
        assertThat(pool(d.next(), "cpu").message()).isEqualTo("Nodes failed to register.");
    }

    @Test
    void no_pool_events_while_the_whole_cluster_is_deleted() {
        Cluster c = readyCluster();
        Cluster deleting = deleteRequested(c);
        Decided gone = decide(deleting, ClusterObservation.absent(), AT, NOW);
        assertThat(gone.next().nodePools()).allSatisfy(p -> assertThat(p.state()).isEqualTo(ClusterState.DELETED));
        assertThat(NodePoolEvents.transitions(deleting, gone.next(), NOW)).isEmpty();
    }

    static NodePool pool(Cluster c, String name) {
        return c.nodePools().stream().filter(p -> p.spec().name().equals(name)).findFirst().orElseThrow();
    }

    static List<String> types(List<NodePoolEvent> events) {
        return events.stream().map(NodePoolEvent::type).toList();
    }
}
