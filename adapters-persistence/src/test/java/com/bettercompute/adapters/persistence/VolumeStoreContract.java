package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageCharge;
import com.bettercompute.domain.volume.StorageMeter;
import com.bettercompute.domain.volume.VolumeState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the shared volumes' stores must do; run on the fakes, H2 and PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class VolumeStoreContract {
    private static final Instant T0 = Instant.parse("2026-12-01T10:15:30.123456Z");
    private VolumeStores stores;

    protected abstract VolumeStores open();

    @BeforeAll
    void openStores() {
        stores = open();
    }

    @BeforeEach
    void wipe() {
        stores.wipe().run();
    }

    @AfterAll
    void closeStores() {
        stores.close();
    }

    static SharedVolume volume(String tenant, String clusterId, Instant at) {
        String id = Ids.volumeId(clusterId);
        return SharedVolume.forCluster(id, tenant, clusterId, "train", "acct", "us-central1", "us-central1-a", Ids.volumeStorageName(id),
                2048, at);
    }

    @Test
    void a_volume_comes_back_as_written_every_field_included() {
        SharedVolume v = volume("acme", "kcl_a", T0);
        assertThat(stores.volumes().insert(v)).isTrue();
        assertThat(stores.volumes().find(v.id())).contains(v);

        SharedVolume full = v.withState(VolumeState.ATTACHED, "a message", T0.plusSeconds(1)).withDeleteWithCluster(true, T0.plusSeconds(2))
                .sampled(5_000_000_000_000L, T0.plusSeconds(3), new StorageMeter(T0.plusSeconds(3), 5_000_000_000_000L,
                        Instant.parse("2026-12-01T10:00:00Z"), new BigInteger("123456789012345678901234567")))
                .withProgress(new SharedVolume.Progress("delete-volume", "projects/p/locations/l/operations/op-1", 2,
                        T0.plusSeconds(60), T0.plusSeconds(4)));
        assertThat(stores.volumes().update(full, v.version())).isTrue();
        assertThat(stores.volumes().find(v.id())).contains(full);
        assertThat(stores.volumes().forCluster("kcl_a")).contains(full);
    }

    @Test
    void one_volume_per_cluster_a_second_insert_writes_nothing() {
        SharedVolume v = volume("acme", "kcl_a", T0);
        assertThat(stores.volumes().insert(v)).isTrue();
        assertThat(stores.volumes().insert(v.withState(VolumeState.ATTACHED, null, T0))).isFalse();
        assertThat(stores.volumes().find(v.id())).contains(v);
    }

    @Test
    void replicas_inserting_the_same_clusters_volume_at_once_keep_one() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 10; round++) {
                SharedVolume v = volume("acme", "kcl_race" + round, T0);
                CyclicBarrier start = new CyclicBarrier(4);
                List<Future<Boolean>> inserts = new ArrayList<>();
                for (int r = 0; r < 4; r++) {
                    inserts.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return stores.volumes().insert(v);
                    }));
                }
                int first = 0;
                for (Future<Boolean> f : inserts) {
                    first += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(first).as("round %d", round).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void an_update_is_guarded_by_the_revision() {
        SharedVolume v = volume("acme", "kcl_a", T0);
        stores.volumes().insert(v);
        SharedVolume attached = v.withState(VolumeState.ATTACHED, null, T0);
        assertThat(stores.volumes().update(attached, v.version())).isTrue();
        assertThat(stores.volumes().update(v.withState(VolumeState.PRESERVED, null, T0), v.version())).isFalse();
        assertThat(stores.volumes().find(v.id())).contains(attached);
    }

    @Test
    void the_tenants_volumes_are_the_not_deleted_ones_oldest_first() {
        SharedVolume b = volume("acme", "kcl_b", T0.plusSeconds(10));
        SharedVolume a = volume("acme", "kcl_a", T0);
        SharedVolume gone = volume("acme", "kcl_c", T0.plusSeconds(20));
        SharedVolume other = volume("globex", "kcl_g", T0);
        for (SharedVolume v : List.of(b, a, gone, other)) {
            stores.volumes().insert(v);
        }
        stores.volumes().update(gone.deleted(T0.plusSeconds(30)), gone.version());
        assertThat(stores.volumes().forTenant("acme")).containsExactly(a, b);
        assertThat(stores.volumes().forTenant("nobody")).isEmpty();
    }

    @Test
    void due_are_the_volumes_the_loop_looks_after_whose_time_has_come() {
        SharedVolume pending = volume("acme", "kcl_p", T0);
        SharedVolume attached = volume("acme", "kcl_a", T0.plusSeconds(1));
        SharedVolume later = volume("acme", "kcl_l", T0.plusSeconds(2));
        SharedVolume deleting = volume("acme", "kcl_d", T0.plusSeconds(3));
        for (SharedVolume v : List.of(pending, attached, later, deleting)) {
            stores.volumes().insert(v);
        }
        stores.volumes().update(attached.withState(VolumeState.ATTACHED, null, T0), attached.version());
        SharedVolume l = later.withState(VolumeState.PRESERVED, null, T0);
        stores.volumes().update(l.withProgress(l.progress().next(T0.plusSeconds(600))), later.version());
        stores.volumes().update(deleting.deleteAcceptedAt(T0), deleting.version());

        assertThat(stores.volumes().due(T0.plusSeconds(60), 10)).containsExactly(attached.id(), deleting.id());
        assertThat(stores.volumes().due(T0.plusSeconds(600), 10)).containsExactly(attached.id(), later.id(), deleting.id());
        assertThat(stores.volumes().due(T0.plusSeconds(600), 1)).containsExactly(attached.id());
    }

    @Test
    void an_hour_is_charged_once_and_sums_are_per_tenant_and_per_volume() {
        StorageCharge h0 = charge("kvol_a", "acme", 0, "0.250000");
        StorageCharge h1 = charge("kvol_a", "acme", 1, "0.000001");
        StorageCharge b0 = charge("kvol_b", "acme", 0, "1.5");
        StorageCharge g0 = charge("kvol_g", "globex", 0, "9");
        for (StorageCharge c : List.of(h1, h0, b0, g0)) {
            assertThat(stores.ledger().record(c)).isTrue();
        }
        assertThat(stores.ledger().record(charge("kvol_a", "acme", 0, "7"))).isFalse();

        assertThat(stores.ledger().chargedTo("acme")).isEqualTo(Money.parse("1.750001"));
        assertThat(stores.ledger().chargedFor("kvol_a")).isEqualTo(Money.parse("0.250001"));
        assertThat(stores.ledger().chargedTo("nobody")).isEqualTo(Money.ZERO);
        assertThat(stores.ledger().forTenant("acme", 10)).containsExactly(h0, b0, h1);
        assertThat(stores.ledger().latest("acme", 2)).containsExactly(h1, h0);
    }

    @Test
    void a_rollback_leaves_neither_the_volume_nor_its_charges() {
        SharedVolume v = volume("acme", "kcl_a", T0);
        stores.volumes().insert(v);
        IllegalStateException boom = new IllegalStateException("boom");
        assertThatThrownBy(() -> stores.transactions().inTransaction(() -> {
            stores.volumes().update(v.deleteAcceptedAt(T0), v.version());
            stores.ledger().record(charge(v.id(), "acme", 0, "1"));
            throw boom;
        })).isSameAs(boom);
        assertThat(stores.volumes().find(v.id())).contains(v);
        assertThat(stores.ledger().chargedFor(v.id())).isEqualTo(Money.ZERO);
    }

    private static StorageCharge charge(String volume, String tenant, int hour, String usd) {
        return new StorageCharge(volume, Instant.parse("2026-12-01T10:00:00Z").plusSeconds(3600L * hour), tenant, "kcl_x",
                new BigInteger("98765432109876543210"), Money.parse(usd), T0);
    }
}
