package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.domain.usage.UsageRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link UsageLedger} must do; run against the fake, H2 and PostgreSQL. */
abstract class UsageLedgerContract extends PortsContract {
    private static final Instant H0 = Instant.parse("2026-03-01T10:15:30.123456Z");
    private UsageLedger usage;

    @BeforeEach
    void ledger() {
        usage = ports.usage();
    }

    private static UsageRecord hour(String tenantId, String clusterId, int hour) {
        return new UsageRecord(UsageRecord.CLUSTER_HOURS, tenantId, clusterId, H0.plusSeconds(3600L * hour),
                BigDecimal.ONE, H0.plusSeconds(3600L * hour + 5));
    }

    @Test
    void recording_an_hour_twice_keeps_the_first_record() {
        UsageRecord first = hour("acme", "kcl_a", 0);
        UsageRecord again = new UsageRecord(UsageRecord.CLUSTER_HOURS, "acme", "kcl_a", first.hourStart(),
                new BigDecimal("2"), first.recordedAt().plusSeconds(600));

        assertThat(usage.record(first)).isTrue();
        assertThat(usage.record(again)).isFalse();
        assertThat(usage.forTenant("acme", 100)).containsExactly(first);
    }

    @Test
    void a_record_comes_back_as_written() {
        UsageRecord fraction = new UsageRecord("kubernetes.cluster.hours", "acme", "kcl_a", H0,
                new BigDecimal("0.25"), T0);
        UsageRecord big = new UsageRecord("kubernetes.cluster.hours", "acme", "kcl_b", H0,
                new BigDecimal("1000"), T0);
        usage.record(fraction);
        usage.record(big);

        assertThat(usage.forTenant("acme", 100)).containsExactly(fraction, big);
    }

    @Test
    void last_hour_is_the_latest_recorded_hour_of_the_cluster() {
        assertThat(usage.lastHour("kcl_a")).isEmpty();
        usage.record(hour("acme", "kcl_a", 2));
        usage.record(hour("acme", "kcl_a", 0));
        usage.record(hour("acme", "kcl_a", 1));
        usage.record(hour("acme", "kcl_b", 7));

        assertThat(usage.lastHour("kcl_a")).contains(H0.plusSeconds(7200));
        assertThat(usage.lastHour("kcl_b")).contains(H0.plusSeconds(7 * 3600));
        assertThat(usage.lastHour("kcl_c")).isEmpty();
    }

    @Test
    void for_tenant_is_oldest_hour_first_then_by_cluster_and_stops_at_the_limit() {
        UsageRecord b1 = hour("acme", "kcl_b", 1);
        UsageRecord a1 = hour("acme", "kcl_a", 1);
        UsageRecord b0 = hour("acme", "kcl_b", 0);
        UsageRecord a2 = hour("acme", "kcl_a", 2);
        UsageRecord other = hour("globex", "kcl_g", 0);
        for (UsageRecord u : List.of(b1, a1, b0, a2, other)) {
            assertThat(usage.record(u)).isTrue();
        }

        assertThat(usage.forTenant("acme", 100)).containsExactly(b0, a1, b1, a2);
        assertThat(usage.forTenant("acme", 2)).containsExactly(b0, a1);
        assertThat(usage.forTenant("acme", 0)).isEmpty();
        assertThat(usage.forTenant("globex", 100)).containsExactly(other);
        assertThat(usage.forTenant("nobody", 100)).isEmpty();
    }

    @Test
    void a_duplicate_inside_a_transaction_leaves_it_usable_and_a_rollback_leaves_nothing() {
        usage.record(hour("acme", "kcl_a", 0));
        ports.transactions().inTransaction(() -> {
            assertThat(usage.record(hour("acme", "kcl_a", 0))).isFalse();
            assertThat(usage.record(hour("acme", "kcl_a", 1))).isTrue();
            return null;
        });
        IllegalStateException refused = new IllegalStateException("refused");
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            usage.record(hour("acme", "kcl_a", 2));
            throw refused;
        })).isSameAs(refused);

        assertThat(usage.forTenant("acme", 100)).containsExactly(hour("acme", "kcl_a", 0), hour("acme", "kcl_a", 1));
        assertThat(usage.lastHour("kcl_a")).contains(H0.plusSeconds(3600));
    }

    @Test
    void replicas_recording_the_same_hour_at_once_keep_one_record() throws Exception {
        int replicas = 8;
        ExecutorService pool = Executors.newFixedThreadPool(replicas);
        try {
            for (int round = 0; round < 20; round++) {
                UsageRecord u = hour("acme", "kcl_race", round);
                CyclicBarrier start = new CyclicBarrier(replicas);
                List<Future<Boolean>> records = new ArrayList<>();
                for (int r = 0; r < replicas; r++) {
                    records.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return usage.record(u);
                    }));
                }
                int created = 0;
                for (Future<Boolean> f : records) {
                    created += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(created).as("round %d", round).isEqualTo(1);
            }
            assertThat(usage.forTenant("acme", 100)).hasSize(20)
                    .extracting(UsageRecord::hourStart).doesNotHaveDuplicates();
        } finally {
            pool.shutdownNow();
        }
    }
}
