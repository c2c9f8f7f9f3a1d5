package com.bettercompute.bootstrap.market;

import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Everything a simulation leaves for its report. */
record SimulationResult(Scenario scenario, long seed, Instant start, Duration length, Duration tick, long ticks,
                        long wallNanos, Market market, SimulationAdapters.Feed feed, SimulationAdapters.Ledger ledger,
                        SimulationAdapters.Effects effects, List<SimJob> jobs, Map<String, Money> initialCredits,
                        List<String> refusedWrites, int failures) {
}
