package com.bettercompute.domain.market;

import java.time.Duration;
import java.time.Instant;

/**
 * Billing of one node grant over one interval: at its locked rate while protected, after that at the
 * tick's clearing price never above its request's limit. Amounts are exact products rounded down to
 * the micro-dollar per entry (in the tenant's favour); entries are keyed by (grant, interval start),
 * one per rate and billing period.
 */
public final class BillingPolicy {
    private BillingPolicy() {
    }

    /** The rate after the window: the tick's price capped by the limit; with no price, the reserve capped. */
    public static long marketRate(Money price, long reserve, long limit) {
        long p = price == null ? reserve : price.micros();
        return Math.min(p, limit);
    }

    /** Micro-dollars for {@code gpus} GPUs at {@code microsPerGpuHour} over [from, to). */
    public static long amount(long microsPerGpuHour, int gpus, Instant from, Instant to) {
        long millis = Duration.between(from, to).toMillis();
        if (millis <= 0) {
            return 0;
        }
        return Math.multiplyExact(Math.multiplyExact(microsPerGpuHour, (long) gpus), millis) / 3_600_000L;
    }
}
