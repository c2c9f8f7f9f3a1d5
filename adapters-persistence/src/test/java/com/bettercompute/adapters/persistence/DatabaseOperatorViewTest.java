package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.UUID;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** What the operator reads of the database, on H2 and PostgreSQL: readiness, the pool's numbers, the reconciler's backlog. */
class DatabaseOperatorViewTest {

    static Database open(String backend) {
        if (backend.equals("h2")) {
            return Database.open("jdbc:h2:mem:ops_" + UUID.randomUUID().toString().replace("-", ""));
        }
        TestPostgres.Db db = TestPostgres.newDatabase();
        return Database.open(db.url(), db.user(), db.password());
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void ready_when_open_and_migrated_and_closed_after_close(String backend) {
        Database db = open(backend);
        assertThat(db.readinessProblem(2)).isEmpty();
        Database.PoolStats pool = db.poolStats();
        assertThat(pool.max()).isEqualTo(16);
        assertThat(pool.active()).isZero();
        assertThat(pool.pending()).isZero();
        db.close();
        assertThat(db.readinessProblem(2)).contains("closed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void the_oldest_due_cluster_is_the_one_whose_next_look_is_longest_past(String backend) {
        try (Database db = open(backend)) {
            assertThat(db.oldestDueSince(T0)).isEmpty();
            Samples.insert(db.clusters(), Samples.full("acme", "later", T0.plus(Duration.ofMinutes(10))));
            Samples.insert(db.clusters(), Samples.full("acme", "first", T0));
            // a sample's next look is 30 s after its creation
            assertThat(db.oldestDueSince(T0.plus(Duration.ofHours(1)))).contains(T0.plusSeconds(30));
            assertThat(db.oldestDueSince(T0.plusSeconds(29))).as("not due yet").isEmpty();
        }
    }
}
