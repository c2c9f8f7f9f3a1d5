package com.bettercompute.application.reconcile;

import java.time.Duration;

/**
 * How often the reconciler looks at a cluster: {@code converging} ones (pending, provisioning,
 * updating, deleting) every 30 s, {@code settled} ones (ready, error) every 5 min. A delete the provider
 * refused is retried after {@code settled}, then twice as long each time (5, 10, 20 … minutes), at most
 * every {@code maxBackoff} (6 h). All configurable, so tests and demos run in seconds.
 */
public record Cadence(Duration converging, Duration settled, Duration maxBackoff) {
    public static final Cadence DEFAULT = new Cadence(Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofHours(6));

    /** The settled interval times 72 is the 6 hours of the spec when settled is 5 minutes. */
    public static Cadence of(Duration converging, Duration settled) {
        return new Cadence(converging, settled, settled.multipliedBy(72));
    }

    /** The wait after the n-th consecutive refusal (n ≥ 1): settled · 2^(n−1), at most maxBackoff. */
    public Duration backoff(int failures) {
        Duration wait = settled;
        for (int i = 1; i < failures && wait.compareTo(maxBackoff) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
    }
}
