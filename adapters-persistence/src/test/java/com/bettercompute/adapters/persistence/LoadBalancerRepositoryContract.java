package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.InMemoryLoadBalancerRepository;
import com.bettercompute.application.fakes.InMemoryStore;
import com.bettercompute.application.fakes.InMemoryTransactions;
import com.bettercompute.application.port.LoadBalancerRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.loadbalancer.HealthCheck;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.LoadBalancerState;
import com.bettercompute.domain.loadbalancer.Refusal;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import com.bettercompute.domain.loadbalancer.ServicePort;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link LoadBalancerRepository} must do; run against the fake, H2 and PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LoadBalancerRepositoryContract {
    private static final Instant T0 = Instant.parse("2026-05-01T10:00:00.123456Z");

    /** The repository, the transactions it takes part in, how to empty it and how to close it. */
    record Opened(LoadBalancerRepository rows, Transactions tx, Runnable wipe, Runnable close) {}

    protected abstract Opened open();

    private Opened opened;
    private LoadBalancerRepository rows;

    @BeforeAll
    void openIt() {
        opened = open();
        rows = opened.rows();
    }

    @BeforeEach
    void wipe() {
        opened.wipe().run();
    }

    @AfterAll
    void closeIt() {
        opened.close().run();
    }

    static Opened inMemory() {
        InMemoryStore store = new InMemoryStore();
        return new Opened(new InMemoryLoadBalancerRepository(store), new InMemoryTransactions(store), store::clear, () -> {});
    }

    static Opened h2() {
        return jdbi(Database.open("jdbc:h2:mem:lb_" + UUID.randomUUID().toString().replace("-", "")), () -> {});
    }

    static Opened postgres() {
        TestPostgres.Db db = TestPostgres.newDatabase();
        return jdbi(Database.open(db.url(), db.user(), db.password()), () -> TestPostgres.drop(db));
    }

    private static Opened jdbi(Database db, Runnable drop) {
        return new Opened(db.loadBalancers(), db.transactions(), () -> db.jdbi().useHandle(h -> { h.execute("DELETE FROM load_balancers"); h.execute("DELETE FROM load_balancer_regions"); }),
                () -> {
                    db.close();
                    drop.run();
                });
    }

    private static LoadBalancer row(String cluster, String uid, String region, LoadBalancerState state, Instant at) {
        LoadBalancerService s = new LoadBalancerService("default", "svc-" + uid, uid, true, LoadBalancerClass.PLATFORM,
                List.of(new ServicePort("", "TCP", 80, 30080)), true, false, 0, false, true, null);
        return LoadBalancer.first(cluster, "acme", s, "platform-prod", region, state,
                state == LoadBalancerState.PENDING ? new Refusal(RefusalReason.CLUSTER_CAP, "cap reached") : null, at);
    }

    @Test
    void a_row_comes_back_as_written_through_every_state() {
        LoadBalancer reserving = row("kcl_a", "u1", "us-central1", LoadBalancerState.RESERVING, T0);
        rows.insert(reserving);
        assertThat(rows.find("kcl_a", "u1")).contains(reserving.withVersion(0));

        LoadBalancer serving = reserving.serving("203.0.113.9", T0.plusSeconds(1))
                .programmed(List.of(80, 443), List.of("projects/p/zones/z/instances/a", "projects/p/zones/z/instances/b"),
                        new HealthCheck(31000, "/healthz"), T0.plusSeconds(2));
        assertThat(rows.update(serving, 0)).isTrue();
        assertThat(rows.find("kcl_a", "u1")).contains(serving.withVersion(1));

        LoadBalancer pending = serving.withVersion(1).pending(new Refusal(RefusalReason.POOL_LIMIT, "pool"), T0.plusSeconds(3));
        assertThat(rows.update(pending, 1)).isTrue();
        assertThat(rows.find("kcl_a", "u1")).contains(pending.withVersion(2));
        assertThat(rows.find("kcl_a", "nope")).isEmpty();
    }

    @Test
    void an_update_or_delete_at_a_stale_version_changes_nothing() {
        LoadBalancer r = row("kcl_a", "u1", "us-central1", LoadBalancerState.RESERVING, T0);
        rows.insert(r);
        assertThat(rows.update(r.serving("203.0.113.1", T0), 0)).isTrue();

        assertThat(rows.update(r.serving("203.0.113.2", T0), 0)).isFalse();
        assertThat(rows.delete("kcl_a", "u1", 0)).isFalse();
        assertThat(rows.find("kcl_a", "u1").orElseThrow().address()).isEqualTo("203.0.113.1");
        assertThat(rows.delete("kcl_a", "u1", 1)).isTrue();
        assertThat(rows.find("kcl_a", "u1")).isEmpty();
        assertThat(rows.delete("kcl_a", "u1", 1)).isFalse();
    }

    @Test
    void a_second_row_for_the_same_service_is_a_conflict_and_leaves_the_transaction_usable() {
        LoadBalancer r = row("kcl_a", "u1", "us-central1", LoadBalancerState.RESERVING, T0);
        rows.insert(r);

        opened.tx().inTransaction(() -> {
            assertThatThrownBy(() -> rows.insert(r)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
            rows.insert(row("kcl_a", "u2", "us-central1", LoadBalancerState.RESERVING, T0));
            return null;
        });
        assertThat(rows.ofCluster("kcl_a")).hasSize(2);
    }

    @Test
    void counts_hold_what_may_hold_an_address_by_cluster_and_by_region() {
        rows.insert(row("kcl_a", "u1", "us-central1", LoadBalancerState.RESERVING, T0));
        rows.insert(row("kcl_a", "u2", "us-central1", LoadBalancerState.PENDING, T0));
        LoadBalancer releasing = row("kcl_b", "u3", "us-central1", LoadBalancerState.RESERVING, T0);
        rows.insert(releasing);
        rows.update(releasing.serving("203.0.113.3", T0).releasing(T0), 0);
        rows.insert(row("kcl_c", "u4", "europe-west4", LoadBalancerState.RESERVING, T0));

        assertThat(rows.holdingInCluster("kcl_a")).isEqualTo(1);
        assertThat(rows.holdingInCluster("kcl_b")).isEqualTo(1);
        assertThat(rows.holdingInCluster("kcl_z")).isZero();
        assertThat(rows.holdingInRegion("us-central1")).isEqualTo(2);
        assertThat(rows.holdingInRegion("europe-west4")).isEqualTo(1);
    }

    @Test
    void lists_are_by_cluster_then_oldest_first() {
        rows.insert(row("kcl_b", "u1", "us-central1", LoadBalancerState.RESERVING, T0));
        rows.insert(row("kcl_a", "u2", "us-central1", LoadBalancerState.RESERVING, T0.plusSeconds(5)));
        rows.insert(row("kcl_a", "u3", "us-central1", LoadBalancerState.PENDING, T0));

        assertThat(rows.all()).extracting(LoadBalancer::serviceUid).containsExactly("u3", "u2", "u1");
        assertThat(rows.ofCluster("kcl_a")).extracting(LoadBalancer::serviceUid).containsExactly("u3", "u2");
        assertThat(rows.clusters()).containsExactly("kcl_a", "kcl_b");
    }

    @Test
    void a_rolled_back_transaction_leaves_no_row() {
        IllegalStateException boom = new IllegalStateException("refused");
        assertThatThrownBy(() -> opened.tx().inTransaction(() -> {
            rows.insert(row("kcl_a", "u1", "us-central1", LoadBalancerState.RESERVING, T0));
            throw boom;
        })).isSameAs(boom);

        assertThat(rows.all()).isEmpty();
    }

    @Test
    void claims_under_the_region_lock_never_take_more_than_the_limit() throws Exception {
        int replicas = 6;
        int limit = 3;
        ExecutorService pool = Executors.newFixedThreadPool(replicas);
        try {
            CyclicBarrier start = new CyclicBarrier(replicas);
            List<Future<Boolean>> claims = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                String uid = "u" + i;
                claims.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return opened.tx().inTransaction(() -> {
                        rows.lockRegion("us-central1");
                        if (rows.holdingInRegion("us-central1") >= limit) {
                            return false;
                        }
                        rows.insert(row("kcl_" + uid, uid, "us-central1", LoadBalancerState.RESERVING, T0));
                        return true;
                    });
                }));
            }
            int taken = 0;
            for (Future<Boolean> f : claims) {
                taken += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(taken).isEqualTo(limit);
            assertThat(rows.holdingInRegion("us-central1")).isEqualTo(limit);
        } finally {
            pool.shutdownNow();
        }
    }
}
