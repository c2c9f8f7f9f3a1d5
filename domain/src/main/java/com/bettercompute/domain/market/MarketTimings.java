package com.bettercompute.domain.market;

import java.time.Duration;

/**
 * The market's durations. {@link #standard()} holds the market's standard values (docs/decisions/market-pricing.md); tests and the
 * simulator use the same values.
 */
public record MarketTimings(Duration minimumHold, Duration protection, Duration notice, Duration idleGrace,
                            Duration balanceHorizon, Duration billingPeriod, Duration evictionGrace) {
    /**
     * One hour of hold, two of protection, a minute of notice, five minutes of idle grace, a
     * two-hour balance horizon, ledger entries within one clock hour (the balance itself is exact at
     * every tick), and the 60-second eviction grace a node drains for when reclaimed at once.
     */
    public static MarketTimings standard() {
        return new MarketTimings(Duration.ofHours(1), Duration.ofHours(2), Duration.ofSeconds(60),
                Duration.ofMinutes(5), Duration.ofHours(2), Duration.ofHours(1), Duration.ofSeconds(60));
    }
}
