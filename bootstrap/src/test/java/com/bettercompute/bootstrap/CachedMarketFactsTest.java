package com.bettercompute.bootstrap;

import com.bettercompute.application.admission.MarketFacts;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The admission facts are read once per cluster and freshness; a failed read is never kept. */
class CachedMarketFactsTest {
    final AtomicLong nanos = new AtomicLong();
    final AtomicInteger reads = new AtomicInteger();
    boolean down;
    boolean packing;

    final CachedMarketFacts facts = new CachedMarketFacts(clusterId -> {
        reads.incrementAndGet();
        if (down) {
            throw new IllegalStateException("the database is unreachable");
        }
        return Optional.of(new MarketFacts("us-central1", List.of(), packing, null, 0, Duration.ofHours(2)));
    }, Duration.ofSeconds(1), nanos::get);

    @Test
    void a_change_binds_once_the_freshness_has_passed() {
        assertThat(facts.facts("kcl_a").orElseThrow().packing()).isFalse();
        packing = true;
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(facts.facts("kcl_a").orElseThrow().packing()).isFalse();
        assertThat(reads).hasValue(1);
        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        assertThat(facts.facts("kcl_a").orElseThrow().packing()).isTrue();
        assertThat(reads).hasValue(2);
    }

    @Test
    void a_failed_read_is_not_kept() {
        down = true;
        assertThatThrownBy(() -> facts.facts("kcl_a")).isInstanceOf(IllegalStateException.class);
        down = false;
        assertThat(facts.facts("kcl_a")).isPresent();
        assertThat(reads).hasValue(2);
    }
}
