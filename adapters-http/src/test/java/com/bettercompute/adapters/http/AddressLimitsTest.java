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

class AddressLimitsTest {
    private final MutableClock clock = new MutableClock();

    @ParameterizedTest(name = "{0} a minute, {1} s apart: {2} of 20 admitted, the first refusal says retry after {3} s")
    @CsvSource({"10, 0, 10, 6", "10, 6, 20, 0", "10, 3, 19, 3", "60, 0, 20, 0", "1, 0, 1, 60", "1, 30, 10, 30",
            "7, 0, 7, 9"})
    void an_address_sends_at_most_its_rate_with_bursts_of_one_minutes_worth(int perMinute, int apartSeconds, int admitted,
                                                                          long firstRetryAfter) {
        AddressLimits limits = new AddressLimits(perMinute, clock);
        List<Long> retryAfter = new ArrayList<>();
        int passed = 0;
        for (int i = 0; i < 20; i++) {
            try {
                limits.admit("203.0.113.7");
                passed++;
            } catch (PrincipalLimits.Exceeded e) {
                assertThat(e.reason()).isEqualTo("address-rate");
                retryAfter.add(e.retryAfterSeconds());
            }
            clock.advance(Duration.ofSeconds(apartSeconds));
        }

        assertThat(passed).isEqualTo(admitted);
        assertThat(retryAfter.isEmpty() ? 0L : retryAfter.get(0)).isEqualTo(firstRetryAfter);
        assertThat(retryAfter).allSatisfy(seconds -> assertThat(seconds).isBetween(1L, 60L));
    }

    @Test
    void one_address_at_its_limit_does_not_limit_another() {
        AddressLimits limits = new AddressLimits(1, clock);
        limits.admit("203.0.113.7");

        limits.admit("2001:db8::1");
        assertThatThrownBy(() -> limits.admit("203.0.113.7")).isInstanceOf(PrincipalLimits.Exceeded.class);
    }

    @Test
    void addresses_quiet_for_a_minute_are_forgotten_with_their_bucket_full_again() {
        AddressLimits limits = new AddressLimits(2, clock);
        for (int i = 0; i < 1_000; i++) {
            limits.admit("198.51.100." + i);
        }
        limits.admit("203.0.113.7");
        limits.admit("203.0.113.7");
        assertThat(limits.kept()).isEqualTo(1_001);

        clock.advance(Duration.ofSeconds(29));
        assertThatThrownBy(() -> limits.admit("203.0.113.7")).as("not yet a whole token back after 29 s")
                .isInstanceOf(PrincipalLimits.Exceeded.class);
        clock.advance(Duration.ofSeconds(61));

        assertThat(limits.kept()).isZero();
        limits.admit("203.0.113.7");
        limits.admit("203.0.113.7");
    }
}
