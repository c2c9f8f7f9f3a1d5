package com.bettercompute.application.fakes;

import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.event.DomainEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemoryTransactionsTest {
    private final InMemoryPorts ports = InMemoryPorts.create();

    private DomainEvent event(String type) {
        return new DomainEvent(type, "acme", "kcl_x", ports.clock().instant(), Map.of());
    }

    @Test
    void an_exception_restores_every_fake_of_the_store() {
        ports.outbox().append(event("before"));
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            ports.outbox().append(event("inside"));
            ports.catalog().save(new Catalog(List.of(), List.of(), List.of(), List.of(), List.of(new Tenant("acme", 3)),
                    List.of(), List.of(), List.of(), List.of()));
            throw new IllegalStateException("refused");
        })).hasMessage("refused");

        assertThat(ports.outbox().all()).extracting(e -> e.event().type()).containsExactly("before");
        assertThat(ports.catalog().tenant("acme")).isEmpty();
    }

    @Test
    void nested_calls_join_the_outer_transaction() {
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            ports.transactions().inTransaction(() -> {
                ports.outbox().append(event("inner"));
                return null;
            });
            throw new IllegalStateException("outer fails");
        }));
        assertThat(ports.outbox().all()).isEmpty();
    }

    @Test
    void lock_tenant_needs_a_transaction() {
        assertThatThrownBy(() -> ports.catalog().lockTenant("acme")).isInstanceOf(IllegalStateException.class);
        assertThat(ports.transactions().inTransaction(() -> ports.catalog().lockTenant("acme"))).isFalse();
    }

    @Test
    void the_clock_moves_only_when_told() {
        Instant start = ports.clock().instant();
        assertThat(ports.clock().instant()).isEqualTo(start);
        assertThat(ports.clock().advance(Duration.ofSeconds(5))).isEqualTo(start.plusSeconds(5));
        assertThat(ports.clock().withZone(java.time.ZoneId.of("Europe/Paris")).instant()).isEqualTo(start.plusSeconds(5));
    }
}
