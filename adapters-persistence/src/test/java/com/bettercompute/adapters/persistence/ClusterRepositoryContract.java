package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static com.bettercompute.adapters.persistence.Samples.deleted;
import static com.bettercompute.adapters.persistence.Samples.full;
import static com.bettercompute.adapters.persistence.Samples.minimal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link ClusterRepository} must do; run against the fake, H2 and PostgreSQL. */
abstract class ClusterRepositoryContract extends PortsContract {
    private ClusterRepository clusters;

    @BeforeEach
    void repository() {
        clusters = ports.clusters();
    }

    private static ClusterFilter tenant(String tenantId) {
        return new ClusterFilter(tenantId, null, null, false);
    }

    @Test
    void insert_then_find_gives_back_every_field_and_the_node_pools_in_order() {
        Cluster full = full("acme", "train", T0);
        Cluster minimal = minimal("acme", "serve", T0);
        clusters.insert(full);
        clusters.insert(minimal);

        assertThat(clusters.find(full.id())).contains(full);
        assertThat(clusters.find(minimal.id())).contains(minimal);
        assertThat(clusters.find(full.id()).orElseThrow().nodePools()).extracting(p -> p.spec().name())
                .containsExactly("gpu", "cpu");
    }

    @Test
    void find_of_an_unknown_id_is_empty() {
        assertThat(clusters.find("kcl_nothing")).isEmpty();
    }

    @Test
    void node_pools_come_oldest_first() {
        Cluster c = full("acme", "train", T0);
        NodePool older = c.nodePools().get(1);
        NodePool newer = c.nodePools().get(0);
        newer = new NodePool(newer.id(), newer.clusterId(), newer.spec(), newer.state(), newer.message(),
                newer.version(), T0.plusSeconds(60), T0.plusSeconds(60));
        clusters.insert(c.toBuilder().nodePools(List.of(newer, older)).build());

        assertThat(clusters.find(c.id()).orElseThrow().nodePools()).containsExactly(older, newer);
    }

    @Test
    void list_is_oldest_first_then_by_id() {
        Cluster late = minimal("acme", "late", T0.plusSeconds(10));
        Cluster a = minimal("acme", "a", T0);
        Cluster b = minimal("acme", "b", T0);
        Cluster early = full("acme", "early", T0.minusSeconds(10));
        for (Cluster c : List.of(late, a, b, early)) {
            clusters.insert(c);
        }
        List<Cluster> sameInstant = a.id().compareTo(b.id()) < 0 ? List.of(a, b) : List.of(b, a);

        assertThat(clusters.list(tenant("acme"), 500))
                .containsExactly(early, sameInstant.get(0), sameInstant.get(1), late);
    }

    @Test
    void list_narrows_by_tenant_pool_and_project_and_stops_at_the_limit() {
        Cluster acmeFull = full("acme", "one", T0);                          // pool_1, prj_1
        Cluster acmeMinimal = minimal("acme", "two", T0.plusSeconds(1));     // pool_2, no project
        Cluster acmeThird = minimal("acme", "three", T0.plusSeconds(2));
        Cluster other = full("globex", "one", T0.plusSeconds(3));
        for (Cluster c : List.of(acmeFull, acmeMinimal, acmeThird, other)) {
            clusters.insert(c);
        }

        assertThat(clusters.list(tenant("acme"), 500)).containsExactly(acmeFull, acmeMinimal, acmeThird);
        assertThat(clusters.list(tenant("globex"), 500)).containsExactly(other);
        assertThat(clusters.list(new ClusterFilter(null, null, null, false), 500))
                .containsExactly(acmeFull, acmeMinimal, acmeThird, other);
        assertThat(clusters.list(new ClusterFilter("acme", "pool_2", null, false), 500))
                .containsExactly(acmeMinimal, acmeThird);
        assertThat(clusters.list(new ClusterFilter(null, null, "prj_1", false), 500)).containsExactly(acmeFull, other);
        assertThat(clusters.list(new ClusterFilter("acme", "pool_1", "prj_1", false), 500)).containsExactly(acmeFull);
        assertThat(clusters.list(tenant("acme"), 2)).containsExactly(acmeFull, acmeMinimal);
        assertThat(clusters.list(tenant("acme"), 0)).isEmpty();
        assertThat(clusters.list(tenant("nobody"), 500)).isEmpty();
    }

    @Test
    void list_leaves_out_deleted_clusters_unless_asked() {
        Cluster gone = minimal("acme", "gone", T0);
        Cluster kept = minimal("acme", "kept", T0.plusSeconds(1));
        clusters.insert(gone);
        clusters.insert(kept);
        Cluster goneDeleted = deleted(gone, T0.plusSeconds(5));
        assertThat(clusters.update(goneDeleted, gone.version())).isTrue();

        assertThat(clusters.list(tenant("acme"), 500)).containsExactly(kept);
        assertThat(clusters.list(new ClusterFilter("acme", null, null, true), 500)).containsExactly(goneDeleted, kept);
    }

    @Test
    void count_not_deleted_counts_a_deleting_cluster_but_not_a_deleted_one() {
        Cluster deleting = minimal("acme", "deleting", T0);
        Cluster gone = minimal("acme", "gone", T0);
        Cluster ready = full("acme", "ready", T0);
        clusters.insert(deleting);
        clusters.insert(gone);
        clusters.insert(ready);
        clusters.insert(full("globex", "ready", T0));
        clusters.update(deleting.toBuilder().state(ClusterState.DELETING).version(2).build(), 1);
        clusters.update(deleted(gone, T0), 1);

        assertThat(clusters.countNotDeleted("acme")).isEqualTo(2);
        assertThat(clusters.countNotDeleted("globex")).isEqualTo(1);
        assertThat(clusters.countNotDeleted("nobody")).isZero();
    }

    @Test
    void name_in_use_looks_at_the_tenants_clusters_that_are_not_deleted() {
        Cluster c = minimal("acme", "train", T0);
        clusters.insert(c);

        assertThat(clusters.nameInUse("acme", "train")).isTrue();
        assertThat(clusters.nameInUse("acme", "other")).isFalse();
        assertThat(clusters.nameInUse("globex", "train")).isFalse();

        clusters.update(deleted(c, T0), 1);
        assertThat(clusters.nameInUse("acme", "train")).isFalse();
    }

    @Test
    void a_second_cluster_with_an_active_name_is_a_conflict() {
        clusters.insert(minimal("acme", "train", T0));
        Cluster sameName = full("acme", "train", T0).toBuilder().build();
        Cluster twin = new Cluster(Ids.clusterId("acme", "other", "k"), sameName.tenantId(), sameName.projectId(),
                sameName.poolId(), sameName.providerAccountId(), sameName.name(), null, sameName.mode(),
                sameName.location(), sameName.region(), sameName.locationType(), sameName.releaseChannel(), null, null,
                null, null, List.of(), false, null, null, ClusterState.PENDING, null, "bc-k-x", "user:x", null, 1, T0,
                T0, null, null, List.of());

        assertThatThrownBy(() -> clusters.insert(twin))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(clusters.find(twin.id())).isEmpty();
        assertThat(clusters.countNotDeleted("acme")).isEqualTo(1);

        clusters.insert(full("globex", "train", T0)); // another tenant may use the name
    }

    @Test
    void a_second_cluster_with_the_same_id_is_a_conflict() {
        Cluster c = minimal("acme", "train", T0);
        clusters.insert(c);
        Cluster sameIdOtherName = new Cluster(c.id(), c.tenantId(), c.projectId(), c.poolId(), c.providerAccountId(),
                "other", null, c.mode(), c.location(), c.region(), c.locationType(), c.releaseChannel(), null, null,
                null, null, List.of(), false, null, null, ClusterState.PENDING, null, c.providerName(), c.ownerId(),
                null, 1, T0, T0, null, null, List.of());

        assertThatThrownBy(() -> clusters.insert(sameIdOtherName))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(clusters.find(c.id())).contains(c);
    }

    @Test
    void a_deleted_clusters_name_is_free_again() {
        Cluster first = minimal("acme", "train", T0);
        clusters.insert(first);
        clusters.update(deleted(first, T0.plusSeconds(1)), 1);
        Cluster second = full("acme", "train", T0.plusSeconds(2));
        clusters.insert(second);
        Cluster third = Samples.minimal("acme", "train-3", T0).toBuilder().build();
        clusters.insert(third);

        assertThat(clusters.find(second.id())).contains(second);
        assertThat(clusters.list(new ClusterFilter("acme", null, null, true), 500)).hasSize(3);
    }

    @Test
    void update_replaces_the_row_and_its_node_pools() {
        Cluster c = full("acme", "train", T0);
        clusters.insert(c);
        NodePool gpu = c.nodePools().get(0);
        NodePool resized = new NodePool(gpu.id(), gpu.clusterId(), new NodePoolSpec(gpu.spec().name(),
                gpu.spec().machineType(), 6, null, gpu.spec().diskGiB(), gpu.spec().diskType(), false,
                new Accelerators("nvidia-l4", 1), List.of("us-central1-c"), Map.of("team", "infra"), List.of()),
                ClusterState.UPDATING, "resizing", 2, gpu.createdAt(), T0.plusSeconds(30));
        NodePool added = new NodePool(Ids.nodePoolId(c.id(), "extra"), c.id(), c.nodePools().get(1).spec(),
                ClusterState.PENDING, null, 1, T0.plusSeconds(30), T0.plusSeconds(30));
        Cluster changed = c.toBuilder().description("changed").requestedVersion("1.31")
                .authorizedNetworks(List.of("172.16.0.0/12")).state(ClusterState.UPDATING).message(null)
                .version(2).updatedAt(T0.plusSeconds(30)).nodePools(List.of(resized, added)).build();

        assertThat(clusters.update(changed, 1)).isTrue();
        assertThat(clusters.find(c.id())).contains(changed);
    }

    @Test
    void update_with_a_stale_version_changes_nothing() {
        Cluster c = full("acme", "train", T0);
        clusters.insert(c);
        Cluster v2 = c.toBuilder().description("v2").version(2).build();
        assertThat(clusters.update(v2, 1)).isTrue();

        Cluster stale = c.toBuilder().description("lost update").version(2).nodePools(List.of()).build();
        assertThat(clusters.update(stale, 1)).isFalse();
        assertThat(clusters.find(c.id())).contains(v2);
        assertThat(clusters.update(minimal("acme", "unknown", T0), 1)).isFalse();
    }

    @Test
    void a_rollback_leaves_nothing() {
        Cluster c = full("acme", "train", T0);
        IllegalStateException refused = new IllegalStateException("refused");

        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            clusters.insert(c);
            assertThat(clusters.find(c.id())).contains(c);
            throw refused;
        })).isSameAs(refused);
        assertThat(clusters.find(c.id())).isEmpty();
        assertThat(clusters.nameInUse("acme", "train")).isFalse();
        assertThat(clusters.countNotDeleted("acme")).isZero();
    }

    @Test
    void nested_transactions_join_the_outer_one() {
        Cluster c = minimal("acme", "train", T0);
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            ports.transactions().inTransaction(() -> {
                clusters.insert(c);
                return null;
            });
            throw new IllegalStateException("outer refuses");
        })).hasMessage("outer refuses");
        assertThat(clusters.find(c.id())).isEmpty();
    }

    @Test
    void a_conflict_inside_a_transaction_leaves_the_transaction_usable() {
        Cluster first = minimal("acme", "train", T0);
        Cluster clash = full("acme", "train", T0);
        Cluster other = full("acme", "other", T0);

        ports.transactions().inTransaction(() -> {
            clusters.insert(first);
            assertThatThrownBy(() -> clusters.insert(clash)).isInstanceOf(DomainException.class);
            clusters.insert(other);
            return null;
        });
        assertThat(clusters.list(tenant("acme"), 500)).extracting(Cluster::name).containsExactlyInAnyOrder("train", "other");
    }
}
