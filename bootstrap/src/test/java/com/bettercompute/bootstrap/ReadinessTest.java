package com.bettercompute.bootstrap;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code /readyz} reports from its checks: problems by name, a hung check bounded and not piled up, a stop. */
class ReadinessTest {

    @Test
    void ready_when_every_check_passes_and_each_problem_named_otherwise() {
        try (Readiness ready = new Readiness().check("database", Optional::empty).check("provider", () -> Optional.of("does not answer"))) {
            assertThat(ready.missing()).containsExactly(Map.entry("provider", "does not answer"));
        }
        try (Readiness ready = new Readiness().check("database", Optional::empty)) {
            assertThat(ready.missing()).isEmpty();
        }
    }

    @Test
    void a_check_is_asked_once_per_few_seconds_however_often_readiness_is_asked() {
        AtomicInteger calls = new AtomicInteger();
        try (Readiness ready = new Readiness().check("database", () -> {
            calls.incrementAndGet();
            return Optional.empty();
        })) {
            for (int i = 0; i < 50; i++) {
                assertThat(ready.missing()).isEmpty();
            }
        }
        assertThat(calls.get()).isOne();
    }

    @Test
    void a_hung_check_is_reported_as_not_answering_and_not_started_again_while_it_hangs() {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        try (Readiness ready = new Readiness().check("database", () -> {
            calls.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.empty();
        })) {
            assertThat(ready.missing()).containsEntry("database", "does not answer within 2 s");
            assertThat(ready.missing()).containsEntry("database", "does not answer within 2 s");
            assertThat(calls.get()).isOne();
            release.countDown();
            assertThat(ready.missing()).isEmpty();
        }
    }

    @Test
    void a_check_that_throws_is_a_problem_not_an_error() {
        try (Readiness ready = new Readiness().check("provider", () -> {
            throw new IllegalStateException("secret-ish detail");
        })) {
            assertThat(ready.missing()).containsExactly(Map.entry("provider", "check failed: IllegalStateException"));
        }
    }

    @Test
    void a_stopping_server_is_not_ready_whatever_its_checks_say() {
        try (Readiness ready = new Readiness().check("database", Optional::empty)) {
            ready.stopping();
            assertThat(ready.missing()).containsExactly(Map.entry("server", "stopping"));
        }
    }
}
