package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.InMemoryInClusterLeases;
import com.bettercompute.application.port.InClusterLeases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** What the in-cluster leases must do; run on the fake, H2 and PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InClusterLeasesContract {
    private static final Instant T0 = Instant.parse("2026-12-01T10:15:30.123456Z");
    private static final Duration LEASE = Duration.ofSeconds(30);

    /** The leases on one backend, emptied between tests. */
    record Stores(InClusterLeases leases, Runnable wipe, Runnable closer) {
        static Stores inMemory() {
            InMemoryInClusterLeases leases = new InMemoryInClusterLeases();
            return new Stores(leases, leases::clear, () -> {});
        }

        static Stores h2() {
            return jdbi(Database.open("jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", "")), () -> {});
        }

        static Stores postgres() {
            TestPostgres.Db db = TestPostgres.newDatabase();
            return jdbi(Database.open(db.url(), db.user(), db.password()), () -> TestPostgres.drop(db));
        }

        private static Stores jdbi(Database db, Runnable drop) {
            return new Stores(db.inClusterLeases(), () -> db.jdbi().useHandle(h -> {
                h.execute("DELETE FROM in_cluster_leases");
                h.execute("DELETE FROM in_cluster_replicas");
            }), () -> {
                db.close();
                drop.run();
            });
        }
    }

    private Stores stores;
    private InClusterLeases leases;

    protected abstract Stores open();

    @BeforeAll
    void openStores() {
        stores = open();
        leases = stores.leases();
    }

    @BeforeEach
    void wipe() {
        stores.wipe().run();
    }

    @AfterAll
    void closeStores() {
        stores.closer().run();
    }

    @Test
    void a_lease_has_one_holder_until_it_runs_out_then_another_takes_it() {
        assertThat(leases.claim(List.of("kcl_a", "kcl_b"), "r1", T0, T0.plus(LEASE))).containsExactlyInAnyOrder("kcl_a", "kcl_b");
        assertThat(leases.claim(List.of("kcl_a", "kcl_c"), "r2", T0.plusSeconds(29), T0.plusSeconds(29).plus(LEASE)))
                .as("kcl_a runs for r1 still; kcl_c was free").containsExactly("kcl_c");
        assertThat(leases.claim(List.of("kcl_a"), "r1", T0.plusSeconds(10), T0.plusSeconds(10).plus(LEASE)))
                .as("the holder renews").containsExactly("kcl_a");

        Instant after = T0.plusSeconds(10).plus(LEASE).plusMillis(1);
        assertThat(leases.claim(List.of("kcl_a", "kcl_b"), "r2", after, after.plus(LEASE)))
                .as("both ran out: r2 takes them").containsExactlyInAnyOrder("kcl_a", "kcl_b");
        assertThat(leases.claim(List.of("kcl_a", "kcl_b", "kcl_c"), "r1", after, after.plus(LEASE))).isEmpty();
    }

    @Test
    void a_lease_given_back_is_free_at_once_and_only_the_holder_gives_it_back() {
        leases.claim(List.of("kcl_a", "kcl_b"), "r1", T0, T0.plus(LEASE));
        leases.release(List.of("kcl_a", "kcl_b"), "r2");
        assertThat(leases.claim(List.of("kcl_a", "kcl_b"), "r2", T0, T0.plus(LEASE))).as("r2 held neither").isEmpty();

        leases.release(List.of("kcl_a"), "r1");
        leases.release(List.of("kcl_a"), "r1");
        assertThat(leases.claim(List.of("kcl_a", "kcl_b"), "r2", T0, T0.plus(LEASE))).containsExactly("kcl_a");
    }

    @Test
    void the_replicas_are_those_whose_word_runs_and_one_that_leaves_frees_its_clusters() {
        assertThat(leases.replicas("r2", T0, T0.plus(LEASE))).containsExactly("r2");
        assertThat(leases.replicas("r1", T0.plusSeconds(5), T0.plusSeconds(5).plus(LEASE))).containsExactly("r1", "r2");
        assertThat(leases.replicas("r1", T0.plusSeconds(31), T0.plusSeconds(31).plus(LEASE)))
                .as("r2 said nothing for longer than its word").containsExactly("r1");

        leases.replicas("r2", T0.plusSeconds(32), T0.plusSeconds(32).plus(LEASE));
        leases.claim(List.of("kcl_a", "kcl_b"), "r1", T0.plusSeconds(32), T0.plusSeconds(32).plus(LEASE));
        leases.leave("r1");
        leases.leave("r1");
        Instant now = T0.plusSeconds(33);
        assertThat(leases.replicas("r2", now, now.plus(LEASE))).containsExactly("r2");
        assertThat(leases.claim(List.of("kcl_a", "kcl_b"), "r2", now, now.plus(LEASE))).containsExactlyInAnyOrder("kcl_a", "kcl_b");
    }

    @Test
    void replicas_racing_for_the_same_free_clusters_never_both_hold_one() throws Exception {
        List<String> ids = IntStream.range(0, 200).mapToObj(i -> "kcl_" + i).toList();
        int racers = 4;
        CyclicBarrier start = new CyclicBarrier(racers);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            List<Future<Set<String>>> held = IntStream.range(0, racers).mapToObj(r -> pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                return leases.claim(ids, "r" + r, T0, T0.plus(LEASE));
            })).toList();
            Set<String> all = new HashSet<>();
            int total = 0;
            for (Future<Set<String>> f : held) {
                Set<String> got = f.get(60, TimeUnit.SECONDS);
                total += got.size();
                all.addAll(got);
            }
            assertThat(all).as("every cluster is held").containsExactlyInAnyOrderElementsOf(ids);
            assertThat(total).as("and by one replica only").isEqualTo(ids.size());
        } finally {
            pool.shutdownNow();
        }
    }
}
