package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * What one tick decided: the feed entries, the events in order, the charges it billed, and the pools
 * whose clearing failed (left as they stood; the other pools cleared).
 */
public record TickOutcome(Instant at, List<PoolTick> feed, List<MarketEvent> events, List<Charge> charges,
                          List<PoolFailure> failures) {
}
