package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/** What one tick decided: the feed entries, the events in order, and the charges it billed. */
public record TickOutcome(Instant at, List<PoolTick> feed, List<MarketEvent> events, List<Charge> charges) {
}
