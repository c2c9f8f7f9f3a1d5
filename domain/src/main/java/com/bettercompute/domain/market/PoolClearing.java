package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * Steps 1 to 7 of a tick for one pool (docs/decisions/market-pricing.md, "The tick"), read top to bottom: read demand and
 * committed supply and clear ({@link PoolDemand}), price ({@link ClearingPricePolicy}), reclaim
 * ({@link ReclaimStep}), grant ({@link GrantStep}) and the reasons for the rest ({@link ReasonsStep}).
 * The policies decide; each step reads the pool and returns its decisions, which the grant lifecycle
 * applies before the next step reads.
 */
final class PoolClearing {
    private final PoolDemand demand = new PoolDemand();
    private final MarketState state;
    private final GrantLifecycle lifecycle;

    PoolClearing(MarketState state, GrantLifecycle lifecycle) {
        this.state = state;
        this.lifecycle = lifecycle;
    }

    /** Clears one pool at {@code now}; {@code runningCost} is by tenant slot ({@link Billing#runningCost}). */
    PoolTick clear(PoolBook b, Instant now, long[] runningCost, List<MarketEvent> events) {
        MarketTimings timings = state.timings();
        PoolDemand d = demand;
        b.compact();
        lifecycle.apply(d.read(b, runningCost, now, timings), b, now, events);
        Money price = ClearingPricePolicy.price(d.reserve, d.walk());
        lifecycle.apply(ReclaimStep.decide(d, price, now, timings), b, now, events);
        lifecycle.apply(GrantStep.decide(d, price), b, now, events);
        lifecycle.apply(ReasonsStep.decide(d, price, timings), b, now, events);
        d.finish();
        b.lastPrice = price;
        return new PoolTick(now, b.pool.id(), price, b.pool.reserve(), b.supply, b.free.size(), d.demand,
                d.waitingNodes, b.granted);
    }
}
