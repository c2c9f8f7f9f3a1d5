package com.bettercompute.domain.market;

/**
 * A request's limit price: its job's {@code nationalcompute.com/limit-price} label when present
 * ({@code "0"} is a real zero and never falls back), else its cluster's, else zero. Read afresh at
 * every tick.
 */
public final class EffectiveLimitPolicy {
    private EffectiveLimitPolicy() {
    }

    /** Returns the limit in micro-dollars per GPU-hour; {@code jobLimit} and {@code clusterLimit} may be null. */
    public static long limit(Money jobLimit, Money clusterLimit) {
        if (jobLimit != null) {
            return jobLimit.micros();
        }
        return clusterLimit == null ? 0 : clusterLimit.micros();
    }
}
