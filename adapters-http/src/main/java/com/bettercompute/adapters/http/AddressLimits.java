package com.bettercompute.adapters.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket per client address for a public route, so what it tells apart (a cluster name that
 * exists from one that does not) cannot be listed by guessing: {@code perMinute} requests a minute on
 * average, as many at once. The buckets live in a bounded Caffeine cache; an address quiet for ten minutes
 * is forgotten (its bucket would be full again anyway).
 */
final class AddressLimits {
    private static final Duration FORGET_AFTER = Duration.ofMinutes(10);
    private static final long MAX_ADDRESSES = 100_000;

    private final int perMinute;
    private final Clock clock;
    private final Cache<String, Bucket> buckets;

    AddressLimits(int perMinute, Clock clock) {
        if (perMinute < 1) {
            throw new IllegalArgumentException("perMinute must be at least 1");
        }
        this.perMinute = perMinute;
        this.clock = clock;
        this.buckets = Caffeine.newBuilder().expireAfterAccess(FORGET_AFTER).maximumSize(MAX_ADDRESSES).build();
    }

    /** Takes one request from the address's bucket, or throws {@link PrincipalLimits.Exceeded} (429 with {@code Retry-After}). */
    void admit(String address) {
        Bucket bucket = buckets.get(address, a -> new Bucket(perMinute, clock.instant()));
        synchronized (bucket) {
            Instant now = clock.instant();
            double minutes = Math.max(0, Duration.between(bucket.refilledAt, now).toNanos() / 60e9);
            bucket.tokens = Math.min(perMinute, bucket.tokens + minutes * perMinute);
            bucket.refilledAt = now;
            if (bucket.tokens < 1) {
                long wait = (long) Math.ceil((1 - bucket.tokens) * 60.0 / perMinute);
                throw new PrincipalLimits.Exceeded("address-rate", "This address sent more than " + perMinute
                        + " requests a minute to a public route, its limit.", Math.max(1, wait));
            }
            bucket.tokens -= 1;
        }
    }

    private static final class Bucket {
        double tokens;
        Instant refilledAt;

        Bucket(double tokens, Instant refilledAt) {
            this.tokens = tokens;
            this.refilledAt = refilledAt;
        }
    }
}
