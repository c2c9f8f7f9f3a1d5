package com.bettercompute.adapters.http;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Each principal's share of the server: at most {@code concurrent} requests in flight at once and, on
 * average, {@code perSecond} requests a second (a bucket that holds one second's worth, so a burst of
 * that size passes at once). A request beyond either is refused before it costs anything more.
 */
final class PrincipalLimits {
    private final int concurrent;
    private final int perSecond;
    private final Clock clock;
    private final Map<String, Share> shares = new ConcurrentHashMap<>();

    PrincipalLimits(int concurrent, int perSecond, Clock clock) {
        if (concurrent < 1 || perSecond < 1) {
            throw new IllegalArgumentException("limits must be at least 1");
        }
        this.concurrent = concurrent;
        this.perSecond = perSecond;
        this.clock = clock;
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
        Share share = shares.computeIfAbsent(principalId, id -> new Share(perSecond, clock.instant()));
        synchronized (share) {
            if (share.inFlight >= concurrent) {
                throw new Exceeded("concurrency", "The caller already has " + concurrent
                        + " requests in flight, its limit; retry once one has finished.", 1);
            }
            Instant now = clock.instant();
            double elapsed = Math.max(0, Duration.between(share.refilledAt, now).toNanos() / 1e9);
            share.tokens = Math.min(perSecond, share.tokens + elapsed * perSecond);
            share.refilledAt = now;
            if (share.tokens < 1) {
                long wait = (long) Math.ceil((1 - share.tokens) / perSecond);
                throw new Exceeded("rate", "The caller sent more than " + perSecond
                        + " requests a second, its limit.", Math.max(1, wait));
            }
            share.tokens -= 1;
            share.inFlight++;
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                share.release();
            }
        };
    }

    /** Requests of the principal in flight now. */
    int inFlight(String principalId) {
        Share share = shares.get(principalId);
        if (share == null) {
            return 0;
        }
        synchronized (share) {
            return share.inFlight;
        }
    }

    private static final class Share {
        int inFlight;
        double tokens;
        Instant refilledAt;

        Share(double tokens, Instant at) {
            this.tokens = tokens;
            this.refilledAt = at;
        }

        synchronized void release() {
            inFlight--;
        }
    }
}
