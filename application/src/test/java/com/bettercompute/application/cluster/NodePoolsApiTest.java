package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.GetNodePool;
import com.bettercompute.application.nodepool.ListNodePools;
import com.bettercompute.application.nodepool.ListNodePoolsQuery;
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
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static com.bettercompute.application.cluster.ClusterWorld.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** kubernetesNodePools: create, list, get, update and delete on the in-memory ports (the world of the clusters API). */
class NodePoolsApiTest {
    final ClusterWorld w = new ClusterWorld();
    final CreateNodePool create = new CreateNodePool(w.ports.transactions(), w.ports.clusters(), w.ports.catalog(), w.ports.outbox(),
            w.authorizer, w.ports.clock());
    final ListNodePools list = new ListNodePools(w.ports.clusters(), w.authorizer);
    final GetNodePool get = new GetNodePool(w.ports.clusters(), w.authorizer);
    final UpdateNodePool update = new UpdateNodePool(w.ports.transactions(), w.ports.clusters(), w.authorizer, w.ports.clock());
    final DeleteNodePool delete = new DeleteNodePool(w.ports.transactions(), w.ports.clusters(), w.ports.outbox(), w.authorizer,
            w.ports.clock());

    /** A create of the pool in the cluster, keyed by its name. */
    static CreateNodePoolCommand addPool(String clusterId, ClusterWorld.PoolSpec pool) {
        NodePoolSpec spec = pool.spec();
        return new CreateNodePoolCommand("acme", clusterId, spec, "key-" + spec.name());
    }

    NodePool add(Caller caller, String clusterId, ClusterWorld.PoolSpec pool) {
        return create.create(caller, addPool(clusterId, pool));
    }

    NodePool add(Caller caller, CreateNodePoolCommand cmd) {
        return create.create(caller, cmd);
    }

    /** An update of the pool that changes only what is given. */
    static UpdateNodePoolCommand resize(String clusterId, String poolId, int nodeCount) {
        return new UpdateNodePoolCommand(new NodePoolRef("acme", clusterId, poolId), nodeCount, false, null, null, null);
    }

    NodePool change(UpdateNodePoolCommand cmd) {
        return update.update(w.alice, cmd);
    }

    Cluster cluster(String id) {
        return w.ports.clusters().find(id).orElseThrow();
    }

    Cluster ready(Cluster c) {
        Cluster now = cluster(c.id());
        Cluster changed = now.toBuilder().state(ClusterState.READY).version(now.version() + 1)
                .nodePools(now.nodePools().stream().map(p -> p.live() ? p.withState(ClusterState.READY, null, now.updatedAt()) : p).toList())
                .build();
        assertThat(w.ports.clusters().update(changed, now.version())).isTrue();
        return changed;
    }

    @Test
    void create_adds_a_pending_pool_turns_a_ready_cluster_updating_and_publishes_created() {
        Cluster c = ready(w.create(w.alice, standard("train")));
        NodePool p = add(w.alice, c.id(), nodePool("cpu").machineType("n2-standard-8").labels(Map.of("team", "ml"))
                .zones("us-central1-a"));

        assertThat(p.id()).matches("knp_[0-9a-hjkmnp-tv-z]{26}");
        assertThat(p.clusterId()).isEqualTo(c.id());
        assertThat(p.state()).isEqualTo(ClusterState.PENDING);
        assertThat(p.version()).isEqualTo(1);
        assertThat(p.spec().diskGiB()).isEqualTo(100);
        assertThat(p.spec().labels()).containsEntry("team", "ml");
        Cluster after = cluster(c.id());
        assertThat(after.state()).isEqualTo(ClusterState.UPDATING);
        assertThat(after.version()).isEqualTo(c.version() + 1);
        assertThat(after.nodePools()).extracting(NodePool::id).containsExactly(c.nodePools().get(0).id(), c.nodePools().get(1).id(), p.id());
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created", "kubernetes.nodepool.created");
        assertThat(get.get(w.dave, new NodePoolRef("acme", c.id(), p.id()))).isEqualTo(p);
    }

    @Test
    void the_same_key_returns_the_same_pool_and_a_changed_request_is_a_conflict() {
        Cluster c = w.create(w.alice, standard("train"));
        NodePool first = add(w.alice, c.id(), nodePool("cpu"));
        // the same request (a body that spells out its defaults binds to the same command: NodePoolBodiesTest)
        NodePool again = add(w.alice, c.id(), nodePool("cpu"));
        assertThat(again).isEqualTo(first);
        assertThat(cluster(c.id()).nodePools()).filteredOn(p -> !CpuWorker.is(p)).hasSize(2);
        assertThatThrownBy(() -> add(w.alice, c.id(), nodePool("cpu").nodeCount(3)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
                    assertThat(e.details()).containsEntry("reason", "idempotency-key-reused");
                });
        // another caller's key is decided on its own: bob may not change this standard cluster
        assertThatThrownBy(() -> add(w.bob, c.id(), nodePool("cpu"))).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
        // the key replays while the pool changes: the pool as it is now
        NodePool resized = change(resize(c.id(), first.id(), 5));
        assertThat(add(w.alice, c.id(), nodePool("cpu"))).isEqualTo(resized);
    }

    /**
     * The refusals of the use case. A field's own form (unknown fields, patterns, the platform's name prefix, autoscaling's
     * bounds) is the API's to check before a command exists: {@code NodePoolBodiesTest} in the HTTP adapter.
     */
    static List<Arguments> refusals() {
        return List.of(
                arguments("a viewer", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.dave, t.std(), nodePool("cpu")), ErrorCode.ACCESS_DENIED),
                arguments("another tenant's caller", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.carol, t.std(), nodePool("cpu")), ErrorCode.ACCESS_DENIED),
                arguments("an unknown cluster", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.alice, "kcl_00000000000000000000000000", nodePool("cpu")), ErrorCode.NOT_FOUND),
                arguments("a zone of another region", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.alice, t.std(), nodePool("cpu").zones("europe-west4-a")), ErrorCode.INVALID_INPUT),
                arguments("a zone the account lacks", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.alice, t.std(), nodePool("cpu").zones("us-central1-f")), ErrorCode.INVALID_INPUT),
                arguments("an autopilot cluster", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.alice, t.auto(), nodePool("cpu")), ErrorCode.UNSUPPORTED),
                arguments("a cluster being deleted", (Function<NodePoolsApiTest, Object>) t -> {
                    String id = t.std();
                    t.w.delete(t.w.alice, "acme", id);
                    return t.add(t.w.alice, id, nodePool("cpu"));
                }, ErrorCode.INVALID_STATE),
                arguments("a name in use", (Function<NodePoolsApiTest, Object>) t -> t.add(t.w.alice, t.std(), nodePool("gpu")), ErrorCode.CONFLICT));
    }

    String std() {
        return w.create(w.alice, standard("std")).id();
    }

    String auto() {
        return w.create(w.alice, autopilot("auto").location("us-central1")).id();
    }

    @ParameterizedTest(name = "create with {0}: {2}")
    @MethodSource("refusals")
    void create_refuses(String what, Function<NodePoolsApiTest, Object> call, ErrorCode code) {
        int events = w.ports.outbox().all().size();
        assertThatThrownBy(() -> call.apply(this)).isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(code));
        // nothing published for a refused call (the setup's own events aside)
        assertThat(w.eventTypes()).doesNotContain("kubernetes.nodepool.created");
        assertThat(w.ports.outbox().all().size()).isGreaterThanOrEqualTo(events);
    }

    @Test
    void a_deleted_pools_name_is_free_again_but_one_being_deleted_is_not() {
        Cluster c = w.create(w.alice, standard("train"));
        NodePool cpu = add(w.alice, c.id(), nodePool("cpu"));
        delete.delete(w.alice, new NodePoolRef("acme", c.id(), cpu.id()));
        CreateNodePoolCommand again = new CreateNodePoolCommand("acme", c.id(), nodePool("cpu").spec(), "again");
        assertThatThrownBy(() -> add(w.alice, again))
                .hasFieldOrPropertyWithValue("code", ErrorCode.CONFLICT);
        markPool(c.id(), cpu.id(), ClusterState.DELETED);
        NodePool added = add(w.alice, again);
        assertThat(added.id()).isNotEqualTo(cpu.id());
    }

    @Test
    void at_most_ten_pools_that_are_not_deleted_exact_under_concurrent_calls() throws Exception {
        Cluster c = w.create(w.alice, standard("train"));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Object>> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String name = "p" + i;
                calls.add(() -> {
                    try {
                        return add(w.alice, c.id(), nodePool(name));
                    } catch (DomainException e) {
                        return e;
                    }
                });
            }
            List<Object> results = new ArrayList<>();
            for (Future<Object> f : pool.invokeAll(calls)) {
                results.add(f.get());
            }
            assertThat(results.stream().filter(r -> r instanceof NodePool)).hasSize(9);
            assertThat(results.stream().filter(r -> r instanceof DomainException)).allSatisfy(r -> {
                DomainException e = (DomainException) r;
                // a call that lost every race to the row may be told to try again; none gets past the quota
                assertThat(e.code()).isIn(ErrorCode.QUOTA_EXCEEDED, ErrorCode.CONFLICT);
                if (e.code() == ErrorCode.QUOTA_EXCEEDED) {
                    assertThat(e.details()).containsEntry("limit", 10);
                }
            });
        } finally {
            pool.shutdownNow();
        }
        assertThat(cluster(c.id()).nodePools()).filteredOn(p -> !CpuWorker.is(p)).hasSize(10);
        assertThatThrownBy(() -> add(w.alice, c.id(), nodePool("late"))).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.QUOTA_EXCEEDED);
            assertThat(e.details()).containsEntry("limit", 10);
        });
    }

    @Test
    void list_is_oldest_first_and_shows_deleted_pools_only_when_asked() {
        Cluster c = w.create(w.alice, standard("train"));
        w.ports.clock().advance(Duration.ofSeconds(1));
        NodePool a = add(w.alice, c.id(), nodePool("a"));
        w.ports.clock().advance(Duration.ofSeconds(1));
        NodePool b = add(w.alice, c.id(), nodePool("b"));
        markPool(c.id(), a.id(), ClusterState.DELETED);
        String gpu = c.nodePools().get(0).id();
        String worker = c.nodePools().get(1).id();

        assertThat(list.list(w.dave, new ListNodePoolsQuery("acme", c.id(), false))).extracting(NodePool::id).containsExactly(gpu, worker, b.id());
        assertThat(list.list(w.dave, new ListNodePoolsQuery("acme", c.id(), true)))
                .extracting(NodePool::id).containsExactly(gpu, worker, a.id(), b.id());
        assertThatThrownBy(() -> list.list(w.carol, new ListNodePoolsQuery("acme", c.id(), false)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> get.get(w.alice, new NodePoolRef("acme", c.id(), "knp_00000000000000000000000000")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
    }

    @Test
    void update_changes_size_autoscaling_labels_and_taints_each_a_new_version() {
        Cluster c = ready(w.create(w.alice, standard("train")));
        NodePool gpu = cluster(c.id()).nodePools().get(0);
        NodePoolRef ref = new NodePoolRef("acme", c.id(), gpu.id());

        NodePool resized = change(new UpdateNodePoolCommand(ref, 4, false, null, null, null));
        assertThat(resized.spec().nodeCount()).isEqualTo(4);
        assertThat(resized.version()).isEqualTo(gpu.version() + 1);
        assertThat(resized.state()).isEqualTo(ClusterState.UPDATING);
        assertThat(cluster(c.id()).state()).isEqualTo(ClusterState.UPDATING);

        NodePool scaling = change(new UpdateNodePoolCommand(ref, null, true, new Autoscaling(1, 6), null, null));
        assertThat(scaling.spec().autoscaling()).isEqualTo(new Autoscaling(1, 6));
        assertThat(scaling.version()).isEqualTo(gpu.version() + 2);

        // autoscaling given as null turns it off
        NodePool fixed = change(new UpdateNodePoolCommand(ref, null, true, null, null, null));
        assertThat(fixed.spec().autoscaling()).isNull();
        assertThat(fixed.spec().nodeCount()).isEqualTo(4);

        NodePool relabeled = change(new UpdateNodePoolCommand(ref, null, false, null, Map.of("team", "ml"),
                List.of(new Taint("gpu", "true", TaintEffect.NoSchedule))));
        assertThat(relabeled.spec().labels()).isEqualTo(Map.of("team", "ml"));
        assertThat(relabeled.spec().taints()).containsExactly(new Taint("gpu", "true", TaintEffect.NoSchedule));
        assertThat(relabeled.version()).isEqualTo(gpu.version() + 4);
        assertThat(get.get(w.alice, new NodePoolRef("acme", c.id(), gpu.id()))).isEqualTo(relabeled);
        // update publishes nothing: the reconciler says kubernetes.nodepool.updated once the provider has it
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created");
    }

    @Test
    void update_refuses_a_viewer_a_pool_being_deleted_and_a_cluster_being_deleted() {
        Cluster c = w.create(w.alice, standard("train"));
        NodePool cpu = add(w.alice, c.id(), nodePool("cpu"));
        // a body naming no field to change, a field that cannot change, a count out of range: NodePoolBodiesTest
        assertThatThrownBy(() -> update.update(w.dave, resize(c.id(), cpu.id(), 1)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        delete.delete(w.alice, new NodePoolRef("acme", c.id(), cpu.id()));
        assertThatThrownBy(() -> change(resize(c.id(), cpu.id(), 1))).hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_STATE);
        w.delete(w.alice, "acme", c.id());
        String gpu = c.nodePools().get(0).id();
        assertThatThrownBy(() -> change(resize(c.id(), gpu, 1))).hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_STATE);
    }

    @Test
    void delete_marks_the_pool_deleting_once_and_keeps_the_last_pool() {
        Cluster c = ready(w.create(w.alice, standard("train")));
        String gpu = c.nodePools().get(0).id();
        assertThatThrownBy(() -> delete.delete(w.alice, new NodePoolRef("acme", c.id(), gpu)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE);
                    assertThat(e.details()).containsEntry("reason", "last-node-pool");
                });
        NodePool cpu = add(w.alice, c.id(), nodePool("cpu"));
        NodePool deleting = delete.delete(w.alice, new NodePoolRef("acme", c.id(), gpu));
        assertThat(deleting.state()).isEqualTo(ClusterState.DELETING);
        assertThat(delete.delete(w.alice, new NodePoolRef("acme", c.id(), gpu))).isEqualTo(deleting);
        // the remaining one is now the last
        assertThatThrownBy(() -> delete.delete(w.alice, new NodePoolRef("acme", c.id(), cpu.id())))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_STATE);
        assertThatThrownBy(() -> delete.delete(w.dave, new NodePoolRef("acme", c.id(), cpu.id())))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThat(cluster(c.id()).nodePools()).filteredOn(p -> !CpuWorker.is(p)).extracting(NodePool::state)
                .containsExactly(ClusterState.DELETING, ClusterState.PENDING);
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created", "kubernetes.nodepool.created",
                "kubernetes.nodepool.deleting");
    }

    private void markPool(String clusterId, String poolId, ClusterState state) {
        Cluster now = cluster(clusterId);
        Cluster changed = now.toBuilder().version(now.version() + 1).nodePools(now.nodePools().stream()
                .map(p -> p.id().equals(poolId) ? p.withState(state, null, now.updatedAt()) : p).toList()).build();
        assertThat(w.ports.clusters().update(changed, now.version())).isTrue();
    }
}
