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
        return limit(jobLimit == null ? NONE : jobLimit.micros(), clusterLimit == null ? NONE : clusterLimit.micros());
    }

    /** The same on raw micro-dollars, {@link #NONE} for a limit not set (the tick's hot path). */
    public static long limit(long jobLimit, long clusterLimit) {
        if (jobLimit != NONE) {
            return jobLimit;
        }
        return clusterLimit == NONE ? 0 : clusterLimit;
    }

    /** A limit that is not set. */
    public static final long NONE = -1;
}
