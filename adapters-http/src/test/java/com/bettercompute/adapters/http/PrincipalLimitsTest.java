package com.bettercompute.adapters.http;

import com.bettercompute.application.fakes.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrincipalLimitsTest {
    private final MutableClock clock = new MutableClock();

    @ParameterizedTest(name = "{0} in flight of {1} allowed: admitted {2}")
    @CsvSource({"0, 2, true", "1, 2, true", "2, 2, false", "15, 16, true", "16, 16, false"})
    void a_principal_has_at_most_its_concurrency_in_flight(int inFlight, int limit, boolean admitted) {
        PrincipalLimits limits = new PrincipalLimits(limit, 1000, clock);
        for (int i = 0; i < inFlight; i++) {
            limits.admit("alice");
        }
        if (admitted) {
            limits.admit("alice");
            assertThat(limits.inFlight("alice")).isEqualTo(inFlight + 1);
        } else {
            assertThatThrownBy(() -> limits.admit("alice")).isInstanceOfSatisfying(PrincipalLimits.Exceeded.class, e -> {
                assertThat(e.reason()).isEqualTo("concurrency");
                assertThat(e.retryAfterSeconds()).isEqualTo(1);
            });
        }
    }

    @Test
    void a_finished_request_gives_its_place_back_once() {
        PrincipalLimits limits = new PrincipalLimits(1, 1000, clock);
        Runnable release = limits.admit("alice");
        release.run();
        release.run();

        assertThat(limits.inFlight("alice")).isZero();
        limits.admit("alice");
        assertThat(limits.inFlight("alice")).isEqualTo(1);
    }

    @Test
    void one_principal_at_its_limit_does_not_limit_another() {
        PrincipalLimits limits = new PrincipalLimits(1, 1, clock);
        limits.admit("alice");

        limits.admit("carol");
        assertThatThrownBy(() -> limits.admit("alice")).isInstanceOf(PrincipalLimits.Exceeded.class);
    }

    @ParameterizedTest(name = "{0} a second, {1} ms apart: {2} of 20 admitted")
    @CsvSource({"10, 0, 10", "10, 100, 20", "10, 50, 19", "10, 200, 20", "4, 100, 11", "1, 0, 1", "1, 1000, 20"})
    void a_principal_sends_at_most_its_rate_with_bursts_of_one_seconds_worth(int perSecond, int apartMillis, int admitted) {
        PrincipalLimits limits = new PrincipalLimits(1000, perSecond, clock);
        List<Long> retryAfter = new ArrayList<>();
        int passed = 0;
        for (int i = 0; i < 20; i++) {
            try {
                limits.admit("alice").run();
                passed++;
            } catch (PrincipalLimits.Exceeded e) {
                assertThat(e.reason()).isEqualTo("rate");
                retryAfter.add(e.retryAfterSeconds());
            }
            clock.advance(Duration.ofMillis(apartMillis));
        }

        assertThat(passed).isEqualTo(admitted);
        assertThat(retryAfter).allSatisfy(seconds -> assertThat(seconds).isEqualTo(1L));
    }

    @Test
    void a_request_refused_for_its_rate_takes_no_place_and_one_refused_for_concurrency_takes_no_token() {
        PrincipalLimits limits = new PrincipalLimits(1, 1, clock);
        Runnable first = limits.admit("alice");

        assertThatThrownBy(() -> limits.admit("alice")).isInstanceOfSatisfying(PrincipalLimits.Exceeded.class,
                e -> assertThat(e.reason()).isEqualTo("concurrency"));
        first.run();
        assertThatThrownBy(() -> limits.admit("alice")).isInstanceOfSatisfying(PrincipalLimits.Exceeded.class,
                e -> assertThat(e.reason()).isEqualTo("rate"));
        assertThat(limits.inFlight("alice")).isZero();
        clock.advance(Duration.ofSeconds(1));
        limits.admit("alice");
        assertThat(limits.inFlight("alice")).isEqualTo(1);
    }

    @Test
    void principals_left_alone_for_over_a_second_are_forgotten_and_come_back_with_a_full_bucket() {
        PrincipalLimits limits = new PrincipalLimits(4, 2, clock);
        for (int i = 0; i < 1_000; i++) {
            limits.admit("user-" + i).run();
        }
        Runnable stillRunning = limits.admit("alice");
        limits.admit("bob").run();
        limits.admit("bob").run();
        assertThat(limits.bucketsKept()).isEqualTo(1_002);
        assertThat(limits.principalsInFlight()).isEqualTo(1);

        clock.advance(Duration.ofMillis(1_001));

        assertThat(limits.bucketsKept()).isZero();
        assertThat(limits.principalsInFlight()).as("alice, still in flight").isEqualTo(1);
        assertThat(limits.inFlight("alice")).isEqualTo(1);
        limits.admit("bob").run();
        limits.admit("bob").run();
        stillRunning.run();
        assertThat(limits.inFlight("alice")).isZero();
        assertThat(limits.principalsInFlight()).isZero();
    }
}
