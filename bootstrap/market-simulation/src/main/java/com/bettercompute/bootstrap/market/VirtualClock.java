package com.bettercompute.bootstrap.market;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The simulator's clock: virtual time, moved by the event loop only. */
final class VirtualClock extends Clock {
    private Instant now;

    VirtualClock(Instant start) {
        this.now = start;
    }

    void set(Instant instant) {
        if (instant.isBefore(now)) {
            throw new IllegalStateException("virtual time never goes back: " + instant + " < " + now);
        }
        now = instant;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
