package com.bettercompute.adapters.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket per key (Bucket4j): {@code perPeriod} requests each {@code period} on average, as many at once, on
 * the injected clock. A key's bucket is forgotten once it has been left alone for longer than a period (Caffeine,
 * on the same clock): by then it is full again, so a bucket made anew is the same bucket. At most {@code maxKeys} are kept;
 * past that the least used go first (a key pushed out that way starts full).
 */
final class RateBuckets {
    private final int perPeriod;
    private final Duration period;
    private final TimeMeter time;
    private final Cache<String, Bucket> buckets;

    RateBuckets(int perPeriod, Duration period, long maxKeys, Clock clock) {
        if (perPeriod < 1) {
            throw new IllegalArgumentException("a rate must be at least 1");
        }
        this.perPeriod = perPeriod;
        this.period = period;
        this.time = new ClockTime(clock);
        this.buckets = Caffeine.newBuilder().ticker(time::currentTimeNanos).expireAfterAccess(period)
                .maximumSize(maxKeys).build();
    }

    /** Takes one token from the key's bucket: 0 when taken, else the whole seconds until one is there (at least 1). */
    long take(String key) {
        ConsumptionProbe probe = buckets.get(key, k -> Bucket.builder()
                .addLimit(limit -> limit.capacity(perPeriod).refillGreedy(perPeriod, period))
                .withCustomTimePrecision(time).build()).tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed()) {
            return 0;
        }
        return Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
    }

    /** The keys whose buckets are kept now (an expired one that Caffeine has yet to drop is not counted). */
    long kept() {
        buckets.cleanUp();
        return buckets.asMap().keySet().stream().count();
    }

    /** The injected clock as Bucket4j's and Caffeine's time, in nanoseconds since the epoch. */
    private record ClockTime(Clock clock) implements TimeMeter {
        @Override
        public long currentTimeNanos() {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public boolean isWallClockBased() {
            return true;
        }
    }
}
