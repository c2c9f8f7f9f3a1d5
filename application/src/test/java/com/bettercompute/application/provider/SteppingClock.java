package com.bettercompute.application.provider;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when told to. Thread-safe. */
public final class SteppingClock extends Clock {
    private volatile Instant now;

    public SteppingClock(Instant start) {
        this.now = start;
    }

    public SteppingClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
