package com.bettercompute.bootstrap;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;

/**
 * A clock read to the microsecond, as the database keeps instants: a market restored from its rows bills on from
 * exactly where the running one stood (a grant's billing cursor is saved only when its ledger entry opens or
 * closes). {@code Clock.tick} cannot serve: with a tick below a millisecond its {@code millis()} divides by zero.
 */
final class MicrosecondClock extends Clock {
    private final Clock base;

    MicrosecondClock(Clock base) {
        this.base = base;
    }

    @Override
    public Instant instant() {
        return base.instant().truncatedTo(ChronoUnit.MICROS);
    }

    @Override
    public long millis() {
        return base.millis();
    }

    @Override
    public ZoneId getZone() {
        return base.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new MicrosecondClock(base.withZone(zone));
    }
}
