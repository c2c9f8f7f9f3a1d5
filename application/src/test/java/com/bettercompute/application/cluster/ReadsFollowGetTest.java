package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.usage.ReadUsage;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.usage.UsageRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.bettercompute.application.cluster.ClusterWorld.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Events and usage follow the read decision of the clusters they are about: a caller sees a cluster's
 * events and usage exactly when {@code get} on that cluster answers it. Bob is an editor narrowed to
 * autopilot clusters in us-central1 or us-central1-a; Dave a viewer of the whole tenant; Alice its admin.
 */
class ReadsFollowGetTest {
    private final ClusterWorld w = new ClusterWorld();
    private final ReadableClusters readable = new ReadableClusters(w.ports.clusters(), w.authorizer);
    private final ReadEvents events = new ReadEvents(w.ports.outbox(), readable);
    private final ReadUsage usage = new ReadUsage(w.ports.usage(), readable);
    private final Map<String, Cluster> clusters = Map.of(
            "standard-a", w.create(w.alice, standard("standard-a")),
            "bobs-autopilot", w.create(w.bob, autopilot("bobs-autopilot").location("us-central1")),
            "autopilot-a", w.create(w.alice, autopilot("autopilot-a")),
            "autopilot-b", w.create(w.alice, autopilot("autopilot-b").location("us-central1-b")));

    ReadsFollowGetTest() {
        Instant hour = Instant.parse("2026-01-01T00:00:00Z");
        for (Cluster c : clusters.values()) {
            w.ports.usage().record(new UsageRecord(UsageRecord.CLUSTER_HOURS, "acme", c.id(), hour, BigDecimal.ONE, hour));
        }
        w.create(w.carol, standard("globex-one").tenantId("globex"));
    }

    @ParameterizedTest(name = "{0} reads {1}: {2}")
    @CsvSource({
            "alice, standard-a, true", "alice, bobs-autopilot, true", "alice, autopilot-a, true", "alice, autopilot-b, true",
            "bob, standard-a, false", "bob, bobs-autopilot, true", "bob, autopilot-a, true", "bob, autopilot-b, false",
            "dave, standard-a, true", "dave, bobs-autopilot, true", "dave, autopilot-a, true", "dave, autopilot-b, true"})
    void a_clusters_events_and_usage_are_read_as_the_cluster_is(String who, String name, boolean readable) {
        Caller caller = caller(who);
        String id = clusters.get(name).id();
        boolean gets;
        try {
            w.get(caller, "acme", id);
            gets = true;
        } catch (com.bettercompute.domain.DomainException e) {
            assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
            gets = false;
        }

        assertThat(gets).as("get").isEqualTo(readable);
        assertThat(events.read(caller, 0, 1000, "acme").items()).as("events")
                .extracting(e -> e.event().subjectId()).satisfies(ids -> assertThat(ids.contains(id)).isEqualTo(readable));
        assertThat(usage.read(caller, "acme", 1000)).as("usage")
                .extracting(UsageRecord::clusterId).satisfies(ids -> assertThat(ids.contains(id)).isEqualTo(readable));
    }

    @Test
    void a_caller_that_may_not_read_the_tenant_reads_none_of_it() {
        assertThatThrownBy(() -> events.read(w.carol, 0, 1000, "acme")).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> usage.read(w.carol, "acme", 1000)).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
    }

    @Test
    void paging_moves_past_the_events_the_caller_may_not_read() {
        List<String> seen = new ArrayList<>();
        long after = 0;
        for (int page = 0; page < 20; page++) {
            ReadEvents.Page p = events.read(w.bob, after, 1, "acme");
            p.items().stream().map(StoredEvent::event).forEach(e -> seen.add(e.subjectId()));
            if (p.next() == after) {
                break;
            }
            after = p.next();
        }
        assertThat(seen).containsExactly(clusters.get("bobs-autopilot").id(), clusters.get("autopilot-a").id());
    }

    @Test
    void an_operator_reads_every_clusters_events_and_usage() {
        w.reload(new com.bettercompute.domain.catalog.Catalog(w.catalog.providers(), w.catalog.accounts(), w.catalog.pools(),
                w.catalog.offers(), w.catalog.tenants(), w.catalog.projects(), w.catalog.networks(), w.catalog.budgets(),
                concat(w.catalog.principals(), new com.bettercompute.domain.catalog.CatalogPrincipal("service:ops",
                        com.bettercompute.domain.cluster.Ids.sha256Hex("ops-token"), true, List.of()))));
        Caller ops = w.authenticate.byToken("ops-token");

        assertThat(events.read(ops, 0, 1000, null).items()).hasSize(5);
        assertThat(usage.read(ops, "acme", 1000)).hasSize(4);
    }

    private static <T> List<T> concat(List<T> list, T one) {
        List<T> all = new ArrayList<>(list);
        all.add(one);
        return all;
    }

    private Caller caller(String who) {
        return switch (who) {
            case "alice" -> w.alice;
            case "bob" -> w.bob;
            default -> w.dave;
        };
    }
}
