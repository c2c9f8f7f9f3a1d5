package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.DomainEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the Jdbi adapter promises beyond the ports' contracts; run on H2 and PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbiAdapterContract {
    private Database db;
    private Runnable dropDatabase;

    /** A fresh database, and what to do once it is closed. */
    protected abstract Map.Entry<Database, Runnable> open();

    @BeforeAll
    void openDatabase() {
        Map.Entry<Database, Runnable> opened = open();
        db = opened.getKey();
        dropDatabase = opened.getValue();
    }

    @BeforeEach
    void wipe() {
        db.jdbi().useHandle(h -> {
            h.execute("DELETE FROM node_pools");
            h.execute("DELETE FROM clusters");
            h.execute("DELETE FROM cluster_counts");
            h.execute("DELETE FROM events");
            h.execute("DELETE FROM usage_records");
        });
    }

    @AfterAll
    void closeDatabase() {
        db.close();
        dropDatabase.run();
    }

    @Test
    void repositories_inside_a_transaction_use_its_connection() {
        Cluster c = Samples.full("acme", "train", T0);

        db.transactions().inTransaction(() -> {
            Samples.insert(db.clusters(), c);
            db.outbox().append(new DomainEvent("kubernetes.cluster.created", "acme", c.id(), T0, Map.of()));
            assertThat(db.clusters().find(c.id())).as("seen inside the transaction").isPresent();
            // another thread has another connection: nothing is committed yet
            assertThat(onAnotherThread(() -> db.clusters().find(c.id())))
                    .as("not seen outside before the commit").isEmpty();
            assertThat(onAnotherThread(() -> db.outbox().read(0, 10, null)))
                    .isEmpty();
            return null;
        });

        assertThat(onAnotherThread(() -> db.clusters().find(c.id())))
                .contains(c);
    }

    private static <T> T onAnotherThread(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work).orTimeout(30, TimeUnit.SECONDS).join();
    }

    @Test
    void instants_are_kept_to_the_microsecond() {
        Instant withNanos = Instant.parse("2026-03-01T10:15:30.123456789Z");
        db.outbox().append(new DomainEvent("t", "acme", "s", withNanos, Map.of("at", withNanos)));

        DomainEvent back = db.outbox().read(0, 1, null).get(0).event();
        assertThat(back.occurredAt()).isEqualTo(Instant.parse("2026-03-01T10:15:30.123456Z"));
        assertThat(back.data()).containsEntry("at", "2026-03-01T10:15:30.123456Z");
    }

    @Test
    void instants_far_from_now_and_before_1970_round_trip() {
        Cluster c = Samples.minimal("acme", "old", Instant.parse("1969-07-20T20:17:40.000001Z"));
        Cluster later = Samples.minimal("acme", "late", Instant.parse("2199-12-31T23:59:59.999999Z"));
        Samples.insert(db.clusters(), c);
        Samples.insert(db.clusters(), later);

        assertThat(db.clusters().find(c.id())).contains(c);
        assertThat(db.clusters().find(later.id())).contains(later);
    }

    @Test
    void the_schema_has_the_reconcile_columns_and_usage_records() {
        Cluster c = Samples.minimal("acme", "train", T0);
        Samples.insert(db.clusters(), c);
        db.jdbi().useHandle(h -> {
            assertThat(h.createQuery("SELECT attempts FROM clusters WHERE id = :id").bind("id", c.id())
                    .mapTo(Integer.class).one()).isZero();
            assertThat(h.createUpdate("UPDATE clusters SET lease_owner = :owner, lease_until = :until,"
                            + " next_reconcile_at = :next, attempts = attempts + 1 WHERE id = :id AND lease_owner IS NULL")
                    .bind("owner", "replica-1").bind("until", T0.plusSeconds(30)).bind("next", T0)
                    .bind("id", c.id()).execute()).isEqualTo(1);
            h.createUpdate("INSERT INTO usage_records (cluster_id, hour_start, kind, tenant_id, quantity, recorded_at)"
                            + " VALUES (:c, :h, 'kubernetes.cluster.hours', 'acme', 1, :r)")
                    .bind("c", c.id()).bind("h", T0).bind("r", T0).execute();
            assertThatThrownBy(() -> h.createUpdate("INSERT INTO usage_records (cluster_id, hour_start, kind, tenant_id,"
                            + " quantity, recorded_at) VALUES (:c, :h, 'kubernetes.cluster.hours', 'acme', 1, :r)")
                    .bind("c", c.id()).bind("h", T0).bind("r", T0).execute())
                    .as("an hour is recorded once").matches(e -> Db.uniqueViolation(e) != null);
        });
        Cluster v2 = c.toBuilder().description("d").version(2).build();
        assertThat(db.clusters().update(v2, 1)).isTrue();
        String leaseOwner = db.jdbi().withHandle(h -> h.createQuery("SELECT lease_owner FROM clusters WHERE id = :id")
                .bind("id", c.id()).mapTo(String.class).one());
        assertThat(leaseOwner).as("update leaves the lease alone").isEqualTo("replica-1");
        assertThat(db.clusters().find(c.id())).contains(v2);
    }

    @Test
    void a_failing_database_is_internal_and_names_no_sql() {
        Database other = reopen();
        other.close();

        assertThatThrownBy(() -> other.clusters().find("kcl_x"))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                    assertThat(e.getMessage()).doesNotContainIgnoringCase("select").doesNotContainIgnoringCase("jdbc")
                            .doesNotContainIgnoringCase("clusters");
                });
        assertThatThrownBy(() -> other.transactions().inTransaction(() -> Optional.empty()))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL));
    }

    /** A second pool on the same database. */
    protected abstract Database reopen();
}
