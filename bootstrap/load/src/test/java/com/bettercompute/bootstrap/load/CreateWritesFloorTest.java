package com.bettercompute.bootstrap.load;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The creates' floor of {@code bench/api-wrk.sh} does the writes it claims to, or its ratio would flatter nothing: each
 * call that returns has its tenant's count raised, its cluster, two node pools and one event committed; a tenant it
 * does not know (no count row: the quota's check fails) fails the call with nothing of its group written.
 */
class CreateWritesFloorTest {
    @Test
    void each_create_that_returns_has_its_count_cluster_node_pools_and_event_committed_on_postgresql() throws Exception {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        try {
            checkWrites(Database.open(pg.url(), pg.user(), pg.password()));
        } finally {
            TestPostgres.drop(pg);
        }
    }

    @Test
    void each_create_that_returns_has_its_count_cluster_node_pools_and_event_committed_on_h2() throws Exception {
        checkWrites(Database.open("jdbc:h2:mem:floor-" + System.identityHashCode(this)));
    }

    @Test
    void an_unknown_tenant_fails_its_call_and_writes_nothing() throws Exception {
        Database database = Database.open("jdbc:h2:mem:floor-unknown-" + System.identityHashCode(this));
        try (CreateWritesFloor floor = new CreateWritesFloor(database, 1)) {
            floor.create("load0", "{\"tenantId\":\"load0\"}");
            assertThatThrownBy(() -> floor.create("nobody", "{\"tenantId\":\"nobody\"}")).hasMessageContaining("not known");

            assertThat(count(database, "floor_clusters")).isEqualTo(1);
            assertThat(count(database, "floor_events")).isEqualTo(1);
            assertThatThrownBy(() -> floor.create("load0", "{}")).as("its writer stopped: later calls fail, none hangs")
                    .hasMessageContaining("stopped");
        }
    }

    private static void checkWrites(Database database) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try (CreateWritesFloor floor = new CreateWritesFloor(database, 2)) {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String tenant = "load" + i % 2;
                calls.add(callers.submit(() -> {
                    floor.create(tenant, "{\"tenantId\":\"" + tenant + "\"}");
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            List<Integer> counts = database.jdbi().withHandle(h -> h.createQuery("select clusters from floor_counts order by tenant")
                    .mapTo(Integer.class).list());
            assertThat(counts).containsExactly(20, 20);
            assertThat(count(database, "floor_clusters")).isEqualTo(40);
            assertThat(count(database, "floor_node_pools")).isEqualTo(80);
            assertThat(count(database, "floor_events")).isEqualTo(40);
        } finally {
            callers.shutdownNow();
        }
    }

    private static int count(Database database, String table) {
        return database.jdbi().withHandle(h -> h.createQuery("select count(*) from " + table).mapTo(Integer.class).one());
    }
}
