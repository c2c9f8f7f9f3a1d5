package com.bettercompute.application.cluster;

import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.NodePoolRef;
import com.bettercompute.application.nodepool.UpdateNodePool;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.function.BiFunction;

import static com.bettercompute.application.cluster.ClusterWorld.autopilot;
import static com.bettercompute.application.cluster.ClusterWorld.standard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The CPU worker every Standard cluster gets, on the in-memory ports: made with the cluster, listed, never changed through
 * the pools API (a second one by its name is refused at the API, whose names never take the platform's prefix:
 * {@code NodePoolBodiesTest}).
 */
class CpuWorkerApiTest {
    final ClusterWorld w = new ClusterWorld();
    final CreateNodePool create = new CreateNodePool(w.ports.transactions(), w.ports.clusters(), w.ports.catalog(), w.ports.outbox(),
            w.authorizer, w.ports.clock());
    final UpdateNodePool update = new UpdateNodePool(w.ports.transactions(), w.ports.clusters(), w.authorizer, w.ports.clock());
    final DeleteNodePool delete = new DeleteNodePool(w.ports.transactions(), w.ports.clusters(), w.ports.outbox(), w.authorizer,
            w.ports.clock());

    @Test
    void a_standard_cluster_is_created_with_one_cpu_only_node_and_no_taints_its_role_label_not_in_the_node_config() {
        Cluster c = w.create(w.alice, standard("train"));

        assertThat(c.nodePools()).extracting(p -> p.spec().name()).containsExactly("gpu", CpuWorker.NAME);
        NodePool worker = worker(c);
        assertThat(worker.state()).isEqualTo(ClusterState.PENDING);
        assertThat(worker.spec().nodeCount()).isEqualTo(1);
        assertThat(worker.spec().autoscaling()).isNull();
        assertThat(worker.spec().accelerators()).isNull();
        assertThat(worker.spec().taints()).isEmpty();
        assertThat(worker.spec().spot()).isFalse();
        // a kubelet may not give itself a node-role label: the platform labels the node inside the cluster
        assertThat(worker.spec().labels()).doesNotContainKey("node-role.kubernetes.io/cpu").isEmpty();
        // a zonal cluster's worker is in its zone
        assertThat(worker.spec().zones()).isEmpty();
    }

    @Test
    void a_regional_clusters_worker_is_one_node_in_one_zone_and_an_autopilot_cluster_has_none() {
        Cluster regional = w.create(w.alice, standard("regional").location("us-central1"));
        assertThat(worker(regional).spec().zones()).hasSize(1).allSatisfy(z -> assertThat(z).startsWith("us-central1-"));

        Cluster auto = w.create(w.alice, autopilot("auto").location("us-central1"));
        assertThat(auto.nodePools()).isEmpty();
    }

    static List<Arguments> refusals() {
        return List.<Arguments>of(
                arguments("resize", (BiFunction<CpuWorkerApiTest, Cluster, Object>) (t, c) ->
                        t.update.update(t.w.alice, t.change(c, 3, false, null, null)), ErrorCode.INVALID_STATE, "cpu-worker"),
                arguments("autoscale", (BiFunction<CpuWorkerApiTest, Cluster, Object>) (t, c) ->
                        t.update.update(t.w.alice, t.change(c, null, true, new Autoscaling(1, 4), null)),
                        ErrorCode.INVALID_STATE, "cpu-worker"),
                arguments("taint", (BiFunction<CpuWorkerApiTest, Cluster, Object>) (t, c) ->
                        t.update.update(t.w.alice, t.change(c, null, false, null, List.of(new Taint("a", "b", TaintEffect.NoSchedule)))),
                        ErrorCode.INVALID_STATE, "cpu-worker"),
                arguments("delete", (BiFunction<CpuWorkerApiTest, Cluster, Object>) (t, c) ->
                        t.delete.delete(t.w.alice, new NodePoolRef("acme", c.id(), worker(c).id())), ErrorCode.INVALID_STATE, "cpu-worker"));
    }

    @ParameterizedTest(name = "{0} the CPU worker: {2}")
    @MethodSource("refusals")
    void the_node_pools_api_refuses_to(String what, BiFunction<CpuWorkerApiTest, Cluster, Object> call, ErrorCode code, String reason) {
        Cluster c = w.create(w.alice, standard("train"));
        long version = w.ports.clusters().find(c.id()).orElseThrow().version();

        assertThatThrownBy(() -> call.apply(this, c)).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            if (reason != null) {
                assertThat(e.details()).containsEntry("reason", reason).containsEntry("field", "nodePoolId");
                assertThat(e.getMessage()).contains("CPU worker");
            }
        });
        Cluster after = w.ports.clusters().find(c.id()).orElseThrow();
        assertThat(after.version()).isEqualTo(version);
        assertThat(worker(after).spec()).isEqualTo(worker(c).spec());
    }

    @Test
    void the_worker_counts_neither_as_the_pool_a_cluster_must_keep_nor_towards_the_limit() {
        Cluster c = w.create(w.alice, standard("train"));
        NodePool gpu = c.nodePools().get(0);
        assertThatThrownBy(() -> delete.delete(w.alice, new NodePoolRef("acme", c.id(), gpu.id())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.details()).containsEntry("reason", "last-node-pool"));
        for (int i = 1; i < CreateNodePool.MAX_POOLS_PER_CLUSTER; i++) {
            create.create(w.alice, poolNamed(c, "p" + i));
        }
        assertThat(w.ports.clusters().find(c.id()).orElseThrow().nodePools()).hasSize(CreateNodePool.MAX_POOLS_PER_CLUSTER + 1);
        assertThatThrownBy(() -> create.create(w.alice, poolNamed(c, "one-more")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.QUOTA_EXCEEDED));
    }

    @Test
    void the_worker_goes_with_its_cluster() {
        Cluster c = w.create(w.alice, standard("train"));
        Cluster deleting = w.delete(w.alice, "acme", c.id());
        assertThat(worker(deleting).state()).isEqualTo(ClusterState.DELETING);
    }

    static NodePool worker(Cluster c) {
        return c.nodePools().stream().filter(CpuWorker::is).findFirst().orElseThrow();
    }

    /** An update of the cluster's CPU worker. */
    UpdateNodePoolCommand change(Cluster c, Integer nodeCount, boolean autoscalingGiven, Autoscaling autoscaling, List<Taint> taints) {
        return new UpdateNodePoolCommand(new NodePoolRef("acme", c.id(), worker(c).id()), nodeCount, autoscalingGiven, autoscaling,
                null, taints);
    }

    CreateNodePoolCommand poolNamed(Cluster c, String name) {
        return new CreateNodePoolCommand("acme", c.id(), ClusterWorld.nodePool(name).spec(), "key-" + name);
    }
}
