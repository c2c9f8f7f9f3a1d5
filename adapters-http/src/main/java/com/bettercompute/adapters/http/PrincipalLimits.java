package com.bettercompute.adapters.http;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Each principal's share of the server: at most {@code concurrent} requests in flight at once and, on
 * average, {@code perSecond} requests a second (a bucket that holds one second's worth, so a burst of
 * that size passes at once). A request beyond either is refused before it costs anything more. Only the
 * principals with a request in flight, and those whose bucket is not yet full again, are kept.
 */
final class PrincipalLimits {
    /** The most principals whose buckets are kept at once. */
    private static final long MAX_PRINCIPALS = 100_000;

    private final int concurrent;
    private final int perSecond;
    private final RateBuckets rate;
    /** Requests in flight by principal; a principal leaves it with its last request. */
    private final Map<String, Integer> inFlight = new ConcurrentHashMap<>();

    PrincipalLimits(int concurrent, int perSecond, Clock clock) {
        if (concurrent < 1 || perSecond < 1) {
            throw new IllegalArgumentException("limits must be at least 1");
        }
        this.concurrent = concurrent;
        this.perSecond = perSecond;
        this.rate = new RateBuckets(perSecond, Duration.ofSeconds(1), MAX_PRINCIPALS, clock);
    }

    /** Why a request was refused and when the principal may try again. */
    static final class Exceeded extends RuntimeException {
        private final String reason;
        private final long retryAfterSeconds;

        Exceeded(String reason, String message, long retryAfterSeconds) {
            super(message, null, false, false);
            this.reason = reason;
            this.retryAfterSeconds = retryAfterSeconds;
        }

        String reason() {
            return reason;
        }

        long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }

    /** Takes one of the principal's places, or throws {@link Exceeded}. Run the result once the request is over (again: no effect). */
    Runnable admit(String principalId) {
        // the check, the token and the count under the principal's entry: a refused request takes neither place nor token
        inFlight.compute(principalId, (id, n) -> {
            int now = n == null ? 0 : n;
            if (now >= concurrent) {
                throw new Exceeded("concurrency", "The caller already has " + concurrent
                        + " requests in flight, its limit; retry once one has finished.", 1);
            }
            long wait = rate.take(id);
            if (wait > 0) {
                throw new Exceeded("rate", "The caller sent more than " + perSecond
                        + " requests a second, its limit.", wait);
            }
            return now + 1;
        });
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                inFlight.computeIfPresent(principalId, (id, n) -> n == 1 ? null : n - 1);
            }
        };
    }

    /** Requests of the principal in flight now. */
    int inFlight(String principalId) {
        return inFlight.getOrDefault(principalId, 0);
    }

    /** The principals whose buckets are kept now (not yet full again). */
    long bucketsKept() {
        return rate.kept();
    }

    /** The principals with a request in flight now. */
    int principalsInFlight() {
        return inFlight.size();
    }
}
