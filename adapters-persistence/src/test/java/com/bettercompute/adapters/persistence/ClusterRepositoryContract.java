package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.ClusterRepository.Insertion;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.event.DomainEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.ParameterizedTest;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static com.bettercompute.adapters.persistence.Samples.deleted;
import static com.bettercompute.adapters.persistence.Samples.full;
import static com.bettercompute.adapters.persistence.Samples.minimal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

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
        Samples.insert(clusters, full);
        Samples.insert(clusters, minimal);

        assertThat(clusters.find(full.id())).contains(full);
        assertThat(clusters.find(minimal.id())).contains(minimal);
        assertThat(clusters.find(full.id()).orElseThrow().nodePools()).extracting(p -> p.spec().name())
                .containsExactly("gpu", "cpu");
    }

    @Test
    void insert_all_of_a_taken_name_is_a_conflict_and_its_transaction_stores_none_of_them() {
        Samples.insert(clusters, minimal("acme", "train", T0));
        Cluster fresh = minimal("acme", "fresh", T0);

        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            Samples.insertAll(clusters, List.of(fresh, minimal("acme", "train", T0, "another-key")));
            return null;
        }))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(clusters.find(fresh.id())).isEmpty();
    }

    // --- a new cluster's insert: what a create writes, checked under the tenant's lock ---

    @Test
    void a_new_cluster_is_inserted_with_its_node_pools_owner_event_and_count_as_one_unit() {
        ports.catalog().save(Samples.tenants(10, "acme", "globex"));
        // a name no other test stores: a replica keeps what it read, and the wipe between tests is no write of its own
        Cluster c = full("acme", "created", T0);

        assertThat(clusters.insert(Samples.asNew(c, 10))).isEqualTo(new Insertion.Inserted(c));

        assertThat(clusters.find(c.id())).contains(c);
        assertThat(ports.access().owner(c.id())).contains(c.ownerId());
        assertThat(ports.outbox().read(0, 100, null)).extracting(e -> e.event().type(), e -> e.event().subjectId(), e -> e.event().data())
                .containsExactly(tuple("kubernetes.cluster.created", c.id(), Map.of("name", "created")));
        assertThat(clusters.countNotDeleted("acme")).isEqualTo(1);
        assertThat(clusters.nameInUse("acme", "created")).isTrue();
    }

    /** An insert that writes nothing: what is stored before it, what it asks, what it answers. */
    static Stream<Arguments> insertsThatWriteNothing() {
        Cluster train = minimal("acme", "train", T0);
        Cluster deleting = minimal("acme", "deleting", T0);
        return Stream.of(
                Arguments.of("the id stored already (a retry), whatever else it asks", List.of(train),
                        train.toBuilder().description("another request").build(), 10, new Insertion.AlreadyStored(train)),
                Arguments.of("a tenant the catalog does not name", List.of(), minimal("initech", "train", T0), 10,
                        new Insertion.NoTenant()),
                Arguments.of("a name another cluster of the tenant has", List.of(train), minimal("acme", "train", T0, "another-key"),
                        10, new Insertion.NameInUse()),
                Arguments.of("a tenant at its limit, a cluster being deleted counting", List.of(train, deleting),
                        minimal("acme", "third", T0), 2, new Insertion.OverQuota(2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("insertsThatWriteNothing")
    void an_insert_refused_by_its_checks_writes_nothing_and_says_why(String what, List<Cluster> stored, Cluster asked, int limit,
                                                                     Insertion answer) {
        ports.catalog().save(Samples.tenants(10, "acme", "globex"));
        stored.forEach(c -> assertThat(clusters.insert(Samples.asNew(c, 10))).isInstanceOf(Insertion.Inserted.class));
        stored.stream().filter(c -> c.name().equals("deleting")).forEach(c ->
                assertThat(clusters.update(c.toBuilder().state(ClusterState.DELETING).version(2).build(), 1)).isTrue());
        int events = ports.outbox().read(0, 100, null).size();

        assertThat(clusters.insert(new ClusterRepository.NewCluster(asked, "user:someone-else", Samples.created(asked), limit)))
                .isEqualTo(answer);

        assertThat(ports.outbox().read(0, 100, null)).hasSize(events);
        assertThat(clusters.countNotDeleted(asked.tenantId())).isEqualTo(stored.size());
        assertThat(ports.access().clustersOwnedBy("user:someone-else")).isEmpty();
        if (!(answer instanceof Insertion.AlreadyStored)) {
            assertThat(clusters.find(asked.id())).isEmpty();
        }
    }

    @Test
    void a_deleted_clusters_name_is_free_for_a_new_cluster_and_it_no_longer_counts() {
        ports.catalog().save(Samples.tenants(1, "acme"));
        Cluster first = minimal("acme", "train", T0);
        assertThat(clusters.insert(Samples.asNew(first, 1))).isInstanceOf(Insertion.Inserted.class);
        assertThat(clusters.update(deleted(first, T0.plusSeconds(1)), 1)).isTrue();
        Cluster second = full("acme", "train", T0.plusSeconds(2));

        assertThat(clusters.insert(Samples.asNew(second, 1))).isEqualTo(new Insertion.Inserted(second));
        assertThat(clusters.countNotDeleted("acme")).isEqualTo(1);
    }

    @Test
    void in_a_callers_transaction_the_insert_takes_part_in_it_and_rolls_back_with_it() {
        ports.catalog().save(Samples.tenants(10, "acme"));
        Cluster c = full("acme", "rolled-back", T0);
        IllegalStateException refused = new IllegalStateException("refused");

        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            assertThat(clusters.insert(Samples.asNew(c, 10))).isEqualTo(new Insertion.Inserted(c));
            assertThat(clusters.find(c.id())).contains(c);
            throw refused;
        })).isSameAs(refused);
        assertThat(clusters.find(c.id())).isEmpty();
        assertThat(ports.access().owner(c.id())).isEmpty();
        assertThat(ports.outbox().read(0, 100, null)).isEmpty();
        assertThat(clusters.countNotDeleted("acme")).isZero();

        Cluster other = minimal("acme", "other", T0);
        ports.transactions().inTransaction(() -> clusters.insert(Samples.asNew(other, 10)));
        assertThat(clusters.find(other.id())).contains(other);
        assertThat(ports.access().owner(other.id())).contains(other.ownerId());
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
        Samples.insert(clusters, c.toBuilder().nodePools(List.of(newer, older)).build());

        assertThat(clusters.find(c.id()).orElseThrow().nodePools()).containsExactly(older, newer);
    }

    @Test
    void list_is_oldest_first_then_by_id() {
        Cluster late = minimal("acme", "late", T0.plusSeconds(10));
        Cluster a = minimal("acme", "a", T0);
        Cluster b = minimal("acme", "b", T0);
        Cluster early = full("acme", "early", T0.minusSeconds(10));
        for (Cluster c : List.of(late, a, b, early)) {
            Samples.insert(clusters, c);
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
            Samples.insert(clusters, c);
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
        Samples.insert(clusters, gone);
        Samples.insert(clusters, kept);
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
        Samples.insert(clusters, deleting);
        Samples.insert(clusters, gone);
        Samples.insert(clusters, ready);
        Samples.insert(clusters, full("globex", "ready", T0));
        clusters.update(deleting.toBuilder().state(ClusterState.DELETING).version(2).build(), 1);
        clusters.update(deleted(gone, T0), 1);

        assertThat(clusters.countNotDeleted("acme")).isEqualTo(2);
        assertThat(clusters.countNotDeleted("globex")).isEqualTo(1);
        assertThat(clusters.countNotDeleted("nobody")).isZero();
    }

    @Test
    void name_in_use_looks_at_the_tenants_clusters_that_are_not_deleted() {
        Cluster c = minimal("acme", "train", T0);
        Samples.insert(clusters, c);

        assertThat(clusters.nameInUse("acme", "train")).isTrue();
        assertThat(clusters.nameInUse("acme", "other")).isFalse();
        assertThat(clusters.nameInUse("globex", "train")).isFalse();

        clusters.update(deleted(c, T0), 1);
        assertThat(clusters.nameInUse("acme", "train")).isFalse();
    }

    /** A write to a cluster, and the count of the tenant's clusters not deleted after it. */
    enum CountedWrite {
        INSERT(c -> Samples.insert(c.clusters, minimal("acme", "new", T0)), 3),
        INSERT_ALL_IN_TWO_TENANTS(c -> Samples.insertAll(c.clusters, List.of(minimal("acme", "a", T0), minimal("globex", "b", T0),
                minimal("acme", "b", T0))), 4),
        INSERT_OF_A_TAKEN_NAME_REFUSED(c -> assertThatThrownBy(() -> Samples.insert(c.clusters, minimal("acme", "ready", T0, "other-key")))
                .isInstanceOf(DomainException.class), 2),
        DELETING_STILL_COUNTS(c -> c.clusters.update(c.ready.toBuilder().state(ClusterState.DELETING).version(2).build(), 1), 2),
        DELETED(c -> c.clusters.update(deleted(c.ready, T0), 1), 1),
        DELETED_BY_THE_API_WRITE(c -> c.clusters.updateRequest(deleted(c.ready, T0), 1), 1),
        A_DELETED_ONE_CHANGED_AGAIN(c -> c.clusters.update(deleted(c.gone, T0), 2), 2),
        A_DELETED_ONE_BACK(c -> c.clusters.update(c.gone.toBuilder().state(ClusterState.PENDING).deletedAt(null).version(3).build(), 2), 3),
        DELETED_AT_ANOTHER_VERSION_REFUSED(c -> assertThat(c.clusters.update(deleted(c.ready, T0), 7)).isFalse(), 2);

        final java.util.function.Consumer<CountedWrite.Given> write;
        final int count;

        CountedWrite(java.util.function.Consumer<CountedWrite.Given> write, int count) {
            this.write = write;
            this.count = count;
        }

        record Given(ClusterRepository clusters, Cluster ready, Cluster gone) {}
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(CountedWrite.class)
    void the_count_of_clusters_not_deleted_follows_every_write(CountedWrite write) {
        Cluster ready = full("acme", "ready", T0);
        Cluster gone = minimal("acme", "gone", T0);
        Samples.insert(clusters, ready);
        Samples.insert(clusters, gone);
        Samples.insert(clusters, minimal("acme", "serve", T0));
        Samples.insert(clusters, minimal("globex", "other", T0));
        assertThat(clusters.update(deleted(gone, T0), 1)).isTrue();
        Cluster goneAt2 = clusters.find(gone.id()).orElseThrow();

        write.write.accept(new CountedWrite.Given(clusters, ready, goneAt2));

        assertThat(clusters.countNotDeleted("acme")).isEqualTo(write.count);
        assertThat(clusters.list(tenant("acme"), 500)).hasSize(write.count);
    }

    @Test
    void a_second_cluster_with_an_active_name_is_a_conflict() {
        Samples.insert(clusters, minimal("acme", "train", T0));
        Cluster sameName = full("acme", "train", T0).toBuilder().build();
        Cluster twin = new Cluster(Ids.clusterId("acme", "other", "k"), sameName.tenantId(), sameName.projectId(),
                sameName.poolId(), sameName.providerAccountId(), sameName.name(), null, sameName.mode(),
                sameName.location(), sameName.region(), sameName.locationType(), sameName.releaseChannel(), null, null,
                null, null, List.of(), false, null, null, ClusterState.PENDING, null, "bc-k-x", "user:x", null, 1, T0,
                T0, null, null, List.of(), Cluster.Progress.NONE);

        assertThatThrownBy(() -> Samples.insert(clusters, twin))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(clusters.find(twin.id())).isEmpty();
        assertThat(clusters.countNotDeleted("acme")).isEqualTo(1);

        Samples.insert(clusters, full("globex", "train", T0)); // another tenant may use the name
    }

    @Test
    void a_second_cluster_with_the_same_id_is_a_conflict() {
        Cluster c = minimal("acme", "train", T0);
        Samples.insert(clusters, c);
        Cluster sameIdOtherName = new Cluster(c.id(), c.tenantId(), c.projectId(), c.poolId(), c.providerAccountId(),
                "other", null, c.mode(), c.location(), c.region(), c.locationType(), c.releaseChannel(), null, null,
                null, null, List.of(), false, null, null, ClusterState.PENDING, null, c.providerName(), c.ownerId(),
                null, 1, T0, T0, null, null, List.of(), null);

        assertThatThrownBy(() -> Samples.insert(clusters, sameIdOtherName))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(clusters.find(c.id())).contains(c);
    }

    @Test
    void a_deleted_clusters_name_is_free_again() {
        Cluster first = minimal("acme", "train", T0);
        Samples.insert(clusters, first);
        clusters.update(deleted(first, T0.plusSeconds(1)), 1);
        Cluster second = full("acme", "train", T0.plusSeconds(2));
        Samples.insert(clusters, second);
        Cluster third = Samples.minimal("acme", "train-3", T0).toBuilder().build();
        Samples.insert(clusters, third);

        assertThat(clusters.find(second.id())).contains(second);
        assertThat(clusters.list(new ClusterFilter("acme", null, null, true), 500)).hasSize(3);
    }

    @Test
    void update_replaces_the_row_and_its_node_pools() {
        Cluster c = full("acme", "train", T0);
        Samples.insert(clusters, c);
        NodePool gpu = c.nodePools().get(0);
        NodePool resized = new NodePool(gpu.id(), gpu.clusterId(), new NodePoolSpec(gpu.spec().name(),
                gpu.spec().machineType(), 6, null, gpu.spec().diskGiB(), gpu.spec().diskType(), false,
                new Accelerators("nvidia-l4", 1), List.of("us-central1-c"), Map.of("team", "infra"), List.of()),
                ClusterState.UPDATING, "resizing", 2, gpu.createdAt(), T0.plusSeconds(30));
        NodePool added = new NodePool(Ids.nodePoolId(c.id(), "extra"), c.id(), c.nodePools().get(1).spec(),
                ClusterState.PENDING, null, 1, T0.plusSeconds(30), T0.plusSeconds(30), "fingerprint-of-the-create");
        Cluster changed = c.toBuilder().description("changed").requestedVersion("1.31")
                .authorizedNetworks(List.of("172.16.0.0/12")).state(ClusterState.UPDATING).message(null)
                .version(2).updatedAt(T0.plusSeconds(30)).nodePools(List.of(resized, added)).build();

        assertThat(clusters.update(changed, 1)).isTrue();
        assertThat(clusters.find(c.id())).contains(changed);
    }

    @Test
    void update_with_a_stale_version_changes_nothing() {
        Cluster c = full("acme", "train", T0);
        Samples.insert(clusters, c);
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
            Samples.insert(clusters, c);
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
                Samples.insert(clusters, c);
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
            Samples.insert(clusters, first);
            assertThatThrownBy(() -> Samples.insert(clusters, clash)).isInstanceOf(DomainException.class);
            Samples.insert(clusters, other);
            return null;
        });
        assertThat(clusters.list(tenant("acme"), 500)).extracting(Cluster::name).containsExactlyInAnyOrder("train", "other");
    }

    // --- the reconciler's bookkeeping: progress, the due queue, the lease ---

    private static final Instant NOW = T0.plusSeconds(3600);

    private Cluster inserted(Cluster c) {
        Samples.insert(clusters, c);
        return c;
    }

    /** The cluster saved at its next version with the progress changed. */
    private Cluster saveProgress(Cluster c, Cluster.Progress progress) {
        Cluster next = c.toBuilder().progress(progress).version(c.version() + 1).build();
        assertThat(clusters.update(next, c.version())).isTrue();
        return next;
    }

    private static Cluster.Progress nextAttemptAt(Instant at) {
        return Cluster.Progress.NONE.withNextAttemptAt(at);
    }

    @Test
    void progress_survives_insert_and_update_field_by_field() {
        Cluster c = inserted(full("acme", "train", T0));
        assertThat(clusters.find(c.id()).orElseThrow().progress()).isEqualTo(c.progress())
                .satisfies(p -> assertThat(p.caCertificate()).hasSizeGreaterThan(2000));

        Cluster.Progress changed = new Cluster.Progress(null, T0.plusSeconds(7), null, 0, null, null);
        Cluster v2 = c.toBuilder().progress(changed).kubernetesVersion("1.31.0-gke.1").nodeVersion("1.31.0-gke.1")
                .endpoint("https://10.0.0.9").readyAt(T0.plusSeconds(40)).version(2).build();
        assertThat(clusters.update(v2, 1)).isTrue();
        assertThat(clusters.find(c.id())).contains(v2);

        Cluster.Progress back = new Cluster.Progress(T0.plusSeconds(50), T0.plusSeconds(7), "delete", 5,
                T0.plusSeconds(600), "Y2E=", "operation-1764583200000-0a1b2c3d", T0.plusSeconds(45));
        Cluster v3 = v2.toBuilder().progress(back).version(3).build();
        assertThat(clusters.update(v3, 2)).isTrue();
        assertThat(clusters.find(c.id()).orElseThrow().progress()).isEqualTo(back);
        assertThat(clusters.list(tenant("acme"), 10)).containsExactly(v3);
        assertThat(clusters.find(inserted(minimal("acme", "serve", T0)).id()).orElseThrow().progress())
                .isEqualTo(Cluster.Progress.NONE);
    }

    @Test
    void an_api_write_keeps_the_reconcilers_bookkeeping_and_writes_the_tenants_fields() {
        Cluster c = inserted(full("acme", "train", T0));
        // the reconciler saves its bookkeeping without a new version
        Cluster.Progress reconciler = new Cluster.Progress(null, T0.plusSeconds(7), "set-version 1.33", 2, T0.plusSeconds(30), "Q0E=",
                "operation-7", T0.plusSeconds(20));
        assertThat(clusters.update(c.toBuilder().progress(reconciler).build(), c.version())).isTrue();
        // the API writes from the row it read before that save
        Cluster.Progress stale = c.progress();
        Cluster.Progress asked = new Cluster.Progress(T0.plusSeconds(60), stale.providerAcceptedAt(), stale.pendingAction(),
                stale.failures(), null, stale.caCertificate());
        Cluster request = c.toBuilder().description("asked").progress(asked).version(c.version() + 1).build();
        assertThat(clusters.updateRequest(request, c.version())).isTrue();

        Cluster stored = clusters.find(c.id()).orElseThrow();
        assertThat(stored.description()).isEqualTo("asked");
        assertThat(stored.version()).isEqualTo(c.version() + 1);
        assertThat(stored.progress()).isEqualTo(new Cluster.Progress(T0.plusSeconds(60), T0.plusSeconds(7), "set-version 1.33", 2,
                null, "Q0E=", "operation-7", T0.plusSeconds(20)));
        assertThat(clusters.updateRequest(request, c.version())).isFalse();
    }

    @Test
    void due_leaves_out_deleted_clusters_and_takes_every_other_state() {
        Cluster pending = inserted(minimal("acme", "pending", T0));
        Cluster gone = inserted(minimal("acme", "gone", T0.plusSeconds(1)));
        clusters.update(deleted(gone, T0.plusSeconds(2)), 1);
        List<String> expected = new java.util.ArrayList<>(List.of(pending.id()));
        int i = 0;
        for (ClusterState state : List.of(ClusterState.PROVISIONING, ClusterState.READY, ClusterState.UPDATING,
                ClusterState.DELETING, ClusterState.ERROR)) {
            Cluster c = inserted(minimal("acme", state.wire(), T0.plusSeconds(10 + i++)));
            clusters.update(c.toBuilder().state(state).version(2).build(), 1);
            expected.add(c.id());
        }

        assertThat(clusters.due(NOW, "replica-z", 100)).containsExactlyElementsOf(expected);
    }

    @Test
    void due_waits_for_next_attempt_at_and_takes_it_at_that_instant() {
        Cluster asap = inserted(minimal("acme", "asap", T0));
        Cluster later = saveProgress(inserted(minimal("acme", "later", T0)), nextAttemptAt(NOW.plusSeconds(30)));
        Cluster now = saveProgress(inserted(minimal("acme", "now", T0)), nextAttemptAt(NOW));
        Cluster past = saveProgress(inserted(minimal("acme", "past", T0)), nextAttemptAt(NOW.minusSeconds(1)));

        assertThat(clusters.due(NOW, "replica-z", 100)).containsExactlyInAnyOrder(asap.id(), now.id(), past.id());
        assertThat(clusters.due(NOW.plusSeconds(30), "replica-z", 100)).contains(later.id()).hasSize(4);
        assertThat(clusters.due(NOW.minusSeconds(1), "replica-z", 100)).containsExactlyInAnyOrder(asap.id(), past.id());
    }

    @Test
    void due_is_longest_waiting_first_then_by_id_and_stops_at_the_limit() {
        // waiting since: next attempt when set, else creation
        Cluster a = saveProgress(inserted(minimal("acme", "a", T0)), nextAttemptAt(T0.plusSeconds(300)));
        Cluster b = inserted(minimal("acme", "b", T0.plusSeconds(100)));
        Cluster c = saveProgress(inserted(minimal("acme", "c", T0.plusSeconds(200))), nextAttemptAt(T0.plusSeconds(50)));
        Cluster d = inserted(minimal("acme", "d", T0.plusSeconds(100)));
        List<String> sameInstant = b.id().compareTo(d.id()) < 0 ? List.of(b.id(), d.id()) : List.of(d.id(), b.id());

        assertThat(clusters.due(NOW, "replica-z", 100)).containsExactly(c.id(), sameInstant.get(0), sameInstant.get(1), a.id());
        assertThat(clusters.due(NOW, "replica-z", 2)).containsExactly(c.id(), sameInstant.get(0));
        assertThat(clusters.due(NOW, "replica-z", 0)).isEmpty();
    }

    @Test
    void due_leaves_out_a_cluster_whose_lease_is_held_until_it_expires_or_is_released() {
        Cluster held = inserted(minimal("acme", "held", T0));
        Cluster free = inserted(minimal("acme", "free", T0.plusSeconds(1)));
        assertThat(clusters.claim(held.id(), "replica-a", NOW, NOW.plusSeconds(60))).isTrue();

        assertThat(clusters.due(NOW, "replica-z", 100)).containsExactly(free.id());
        assertThat(clusters.due(NOW.plusSeconds(60), "replica-z", 100)).containsExactly(free.id());
        assertThat(clusters.due(NOW.plusSeconds(61), "replica-z", 100)).containsExactly(held.id(), free.id());

        clusters.release(held.id(), "replica-a");
        assertThat(clusters.due(NOW, "replica-z", 100)).containsExactly(held.id(), free.id());
    }

    @Test
    void due_gives_a_replica_the_clusters_it_holds_itself_so_one_started_again_under_its_id_takes_them_back_at_once() {
        Cluster held = inserted(minimal("acme", "held", T0));
        Cluster free = inserted(minimal("acme", "free", T0.plusSeconds(1)));
        assertThat(clusters.claim(held.id(), "replica-a", NOW, NOW.plusSeconds(60))).isTrue();

        assertThat(clusters.due(NOW.plusSeconds(1), "replica-a", 100)).containsExactly(held.id(), free.id());
        assertThat(clusters.due(NOW.plusSeconds(1), "replica-b", 100)).containsExactly(free.id());
        assertThat(clusters.claim(held.id(), "replica-a", NOW.plusSeconds(1), NOW.plusSeconds(61))).isTrue();
    }

    @Test
    void a_lease_is_exclusive_until_it_expires_and_its_owner_may_renew_it() {
        Cluster c = inserted(minimal("acme", "train", T0));

        assertThat(clusters.claim(c.id(), "replica-a", NOW, NOW.plusSeconds(60))).isTrue();
        assertThat(clusters.claim(c.id(), "replica-b", NOW.plusSeconds(1), NOW.plusSeconds(61))).isFalse();
        assertThat(clusters.claim(c.id(), "replica-b", NOW.plusSeconds(60), NOW.plusSeconds(120))).isFalse();
        // the owner renews, even before it expires
        assertThat(clusters.claim(c.id(), "replica-a", NOW.plusSeconds(30), NOW.plusSeconds(90))).isTrue();
        assertThat(clusters.claim(c.id(), "replica-b", NOW.plusSeconds(61), NOW.plusSeconds(120))).isFalse();
        // a crashed owner's lease expires and another replica takes over; the old owner is then shut out
        assertThat(clusters.claim(c.id(), "replica-b", NOW.plusSeconds(91), NOW.plusSeconds(150))).isTrue();
        assertThat(clusters.claim(c.id(), "replica-a", NOW.plusSeconds(92), NOW.plusSeconds(150))).isFalse();
        assertThat(clusters.claim("kcl_nothing", "replica-a", NOW, NOW.plusSeconds(60))).isFalse();
    }

    @Test
    void release_frees_the_lease_only_for_its_owner() {
        Cluster c = inserted(minimal("acme", "train", T0));
        assertThat(clusters.claim(c.id(), "replica-a", NOW, NOW.plusSeconds(60))).isTrue();

        clusters.release(c.id(), "replica-b");
        assertThat(clusters.claim(c.id(), "replica-b", NOW, NOW.plusSeconds(60))).isFalse();

        clusters.release(c.id(), "replica-a");
        assertThat(clusters.claim(c.id(), "replica-b", NOW, NOW.plusSeconds(60))).isTrue();
        clusters.release("kcl_nothing", "replica-b");
    }

    @Test
    void update_and_find_leave_the_lease_alone() {
        Cluster c = inserted(full("acme", "train", T0));
        assertThat(clusters.claim(c.id(), "replica-a", NOW, NOW.plusSeconds(60))).isTrue();

        Cluster v2 = c.toBuilder().state(ClusterState.READY).progress(Cluster.Progress.NONE).version(2).build();
        assertThat(clusters.update(v2, 1)).isTrue();
        assertThat(clusters.find(c.id())).contains(v2);

        assertThat(clusters.claim(c.id(), "replica-b", NOW.plusSeconds(1), NOW.plusSeconds(61))).isFalse();
        assertThat(clusters.due(NOW.plusSeconds(1), "replica-z", 100)).isEmpty();
        assertThat(clusters.claim(c.id(), "replica-a", NOW.plusSeconds(1), NOW.plusSeconds(61))).isTrue();
    }

    @Test
    void of_ten_replicas_claiming_at_once_exactly_one_wins() throws Exception {
        int replicas = 10;
        ExecutorService pool = Executors.newFixedThreadPool(replicas);
        try {
            for (int round = 0; round < 20; round++) {
                Cluster c = inserted(minimal("acme", "race-" + round, T0));
                CyclicBarrier start = new CyclicBarrier(replicas);
                List<Future<Boolean>> claims = new java.util.ArrayList<>();
                for (int r = 0; r < replicas; r++) {
                    String owner = "replica-" + r;
                    claims.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return clusters.claim(c.id(), owner, NOW, NOW.plusSeconds(60));
                    }));
                }
                List<String> winners = new java.util.ArrayList<>();
                for (int r = 0; r < replicas; r++) {
                    if (claims.get(r).get(60, TimeUnit.SECONDS)) {
                        winners.add("replica-" + r);
                    }
                }

                assertThat(winners).as("round %d", round).hasSize(1);
                for (int r = 0; r < replicas; r++) {
                    String owner = "replica-" + r;
                    assertThat(clusters.claim(c.id(), owner, NOW, NOW.plusSeconds(60)))
                            .as("round %d, %s renews", round, owner).isEqualTo(winners.contains(owner));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
