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

/** The admission facts are read once per cluster and market version; a change binds at once; a failed read is never kept. */
class CachedMarketFactsTest {
    final AtomicLong version = new AtomicLong(7);
    final AtomicInteger reads = new AtomicInteger();
    boolean down;
    boolean packing;

    final CachedMarketFacts facts = new CachedMarketFacts(clusterId -> {
        reads.incrementAndGet();
        if (down) {
            throw new IllegalStateException("the database is unreachable");
        }
        return Optional.of(new MarketFacts("us-central1", List.of(), packing, null, 0, Duration.ofHours(2)));
    }, version::get);

    @Test
    void facts_are_read_once_per_version_and_a_saved_change_binds_at_the_next_review() {
        assertThat(facts.facts("kcl_a").orElseThrow().packing()).isFalse();
        assertThat(facts.facts("kcl_a").orElseThrow().packing()).isFalse();
        assertThat(reads).hasValue(1);

        packing = true;
        version.incrementAndGet();

        assertThat(facts.facts("kcl_a").orElseThrow().packing()).isTrue();
        assertThat(reads).hasValue(2);
        assertThat(facts.facts("kcl_b")).isPresent();
        assertThat(reads).as("each cluster is read on its own").hasValue(3);
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
