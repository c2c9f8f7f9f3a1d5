package com.bettercompute.domain.market;

import java.time.Duration;

/**
 * The market's durations. {@link #standard()} holds the values of MARKET.md; tests and the
 * simulator use the same values.
 */
public record MarketTimings(Duration minimumHold, Duration protection, Duration notice, Duration idleGrace,
                            Duration balanceHorizon) {
    public static MarketTimings standard() {
        return new MarketTimings(Duration.ofHours(1), Duration.ofHours(2), Duration.ofSeconds(60),
                Duration.ofMinutes(5), Duration.ofHours(2));
    }
}
