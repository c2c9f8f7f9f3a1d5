package com.bettercompute.adapters.http;

import java.time.Clock;
import java.time.Duration;

/**
 * A token bucket per client address for a public route, so what it tells apart (a cluster name that
 * exists from one that does not) cannot be listed by guessing: {@code perMinute} requests a minute on
 * average, as many at once ({@link RateBuckets}: an address quiet for a minute is forgotten, its bucket
 * full again anyway).
 */
final class AddressLimits {
    private static final long MAX_ADDRESSES = 100_000;

    private final int perMinute;
    private final RateBuckets buckets;

    AddressLimits(int perMinute, Clock clock) {
        if (perMinute < 1) {
            throw new IllegalArgumentException("perMinute must be at least 1");
        }
        this.perMinute = perMinute;
        this.buckets = new RateBuckets(perMinute, Duration.ofMinutes(1), MAX_ADDRESSES, clock);
    }

    /** Takes one request from the address's bucket, or throws {@link PrincipalLimits.Exceeded} (429 with {@code Retry-After}). */
    void admit(String address) {
        long wait = buckets.take(address);
        if (wait > 0) {
            throw new PrincipalLimits.Exceeded("address-rate", "This address sent more than " + perMinute
                    + " requests a minute to a public route, its limit.", wait);
        }
    }

    /** The addresses kept now (those whose bucket is not full again). */
    long kept() {
        return buckets.kept();
    }
}
