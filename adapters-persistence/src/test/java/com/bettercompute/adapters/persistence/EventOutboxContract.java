package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link EventOutbox} must do; run against the fake, H2 and PostgreSQL. */
abstract class EventOutboxContract extends PortsContract {
    private EventOutbox outbox;

    @BeforeEach
    void repository() {
        outbox = ports.outbox();
    }

    private static DomainEvent event(String type, String tenantId, int n) {
        return new DomainEvent(type, tenantId, "kcl_" + n, T0.plusSeconds(n), Map.of("name", "c" + n, "n", n));
    }

    private static List<DomainEvent> events(List<StoredEvent> stored) {
        return stored.stream().map(StoredEvent::event).toList();
    }

    @Test
    void events_read_back_in_the_order_appended_with_rising_sequences() {
        DomainEvent a = event("kubernetes.cluster.created", "acme", 1);
        DomainEvent b = event("kubernetes.cluster.deleting", "acme", 2);
        DomainEvent c = event("kubernetes.cluster.created", "globex", 3);
        outbox.append(a);
        outbox.append(b);
        outbox.append(c);

        List<StoredEvent> all = outbox.read(0, 100, null);
        assertThat(events(all)).containsExactly(a, b, c);
        assertThat(all.get(0).sequence()).isPositive();
        assertThat(all.get(1).sequence()).isGreaterThan(all.get(0).sequence());
        assertThat(all.get(2).sequence()).isGreaterThan(all.get(1).sequence());
    }

    @Test
    void append_all_appends_in_order_as_append_does() {
        DomainEvent a = event("kubernetes.cluster.created", "acme", 1);
        DomainEvent b = event("kubernetes.cluster.created", "globex", 2);
        DomainEvent c = event("kubernetes.cluster.created", "acme", 3);
        outbox.append(a);
        outbox.appendAll(List.of(b, c));
        outbox.appendAll(List.of());

        List<StoredEvent> all = outbox.read(0, 100, null);
        assertThat(events(all)).containsExactly(a, b, c);
        assertThat(all.get(2).sequence()).isGreaterThan(all.get(1).sequence());
    }

    @Test
    void prepared_events_append_in_order_as_append_all_does_held_together_or_not() {
        DomainEvent a = event("kubernetes.cluster.created", "acme", 1);
        DomainEvent b = event("kubernetes.cluster.created", "globex", 2);
        DomainEvent c = event("kubernetes.cluster.created", "acme", 3);
        DomainEvent d = event("kubernetes.cluster.created", "acme", 4);
        DomainEvent e = event("kubernetes.cluster.created", "globex", 5);

        ports.transactions().inTransaction(() -> ports.transactions().writesTogether(() -> {
            outbox.appendAllPrepared(List.of(outbox.prepare(a), outbox.prepare(b)));
            return null;
        }));
        outbox.appendAllPrepared(List.of(outbox.prepare(c), outbox.prepare(d)));
        outbox.appendAllPrepared(List.of(outbox.prepare(e)));
        outbox.appendAllPrepared(List.of());

        List<StoredEvent> all = outbox.read(0, 100, null);
        assertThat(events(all)).containsExactly(a, b, c, d, e);
        assertThat(all.get(1).sequence()).isGreaterThan(all.get(0).sequence());
    }

    @Test
    void after_and_limit_page_through_the_events() {
        for (int n = 1; n <= 5; n++) {
            outbox.append(event("e" + n, "acme", n));
        }
        List<StoredEvent> all = outbox.read(0, 100, null);

        assertThat(outbox.read(0, 2, null)).containsExactlyElementsOf(all.subList(0, 2));
        assertThat(outbox.read(all.get(1).sequence(), 2, null)).containsExactlyElementsOf(all.subList(2, 4));
        assertThat(outbox.read(all.get(4).sequence(), 2, null)).isEmpty();
        assertThat(outbox.read(0, 0, null)).isEmpty();
    }

    @Test
    void a_tenant_reads_only_its_own_events() {
        outbox.append(event("e1", "acme", 1));
        outbox.append(event("e2", "globex", 2));
        outbox.append(event("e3", "acme", 3));
        long first = outbox.read(0, 1, null).get(0).sequence();

        assertThat(events(outbox.read(0, 100, "acme"))).extracting(DomainEvent::type).containsExactly("e1", "e3");
        assertThat(events(outbox.read(first, 100, "acme"))).extracting(DomainEvent::type).containsExactly("e3");
        assertThat(outbox.read(0, 100, "initech")).isEmpty();
    }

    @Test
    void a_rolled_back_transaction_publishes_nothing() {
        outbox.append(event("before", "acme", 1));
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            outbox.append(event("refused", "acme", 2));
            throw new IllegalStateException("refused");
        }));
        outbox.append(event("after", "acme", 3));

        assertThat(events(outbox.read(0, 100, null))).extracting(DomainEvent::type).containsExactly("before", "after");
    }

    @Test
    void data_of_plain_values_reads_back_equal() {
        DomainEvent e = new DomainEvent("kubernetes.cluster.created", "acme", "kcl_1", T0, Map.of(
                "name", "train", "nodePools", 2, "privateNodes", true,
                "zones", List.of("us-central1-a", "us-central1-b"),
                "owner", Map.of("id", "user:alice", "roles", List.of("admin"))));
        outbox.append(e);

        assertThat(events(outbox.read(0, 100, null))).containsExactly(e);
    }

    @Test
    void an_event_may_name_no_tenant_or_subject() {
        DomainEvent e = new DomainEvent("platform.started", null, null, T0, Map.of());
        outbox.append(e);

        assertThat(events(outbox.read(0, 100, null))).containsExactly(e);
        assertThat(outbox.read(0, 100, "acme")).isEmpty();
    }
}
