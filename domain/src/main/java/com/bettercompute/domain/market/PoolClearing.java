package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * Steps 1 to 7 of a tick for one pool (MARKET.md, "One tick"), each its own collaborator: read
 * demand and committed supply ({@link ReadDemandStep}), clear ({@link ClearingPolicy}'s walk, over
 * the bidders sorted as far as it goes, from the pool's last price down), price
 * ({@link ClearingPricePolicy}), reclaim ({@link ReclaimStep}), grant ({@link GrantStep}) and the
 * reasons for the rest ({@link ReasonsStep}). The policies decide; the steps walk the pool.
 */
final class PoolClearing {
    private final ClearingScratch scratch = new ClearingScratch();
    private final ReadDemandStep readDemand;
    private final ReclaimStep reclaim;
    private final GrantStep grant;
    private final ReasonsStep reasons;

    PoolClearing(Market market) {
        readDemand = new ReadDemandStep(market);
        reclaim = new ReclaimStep(market);
        grant = new GrantStep(market);
        reasons = new ReasonsStep(market);
    }

    /** Clears one pool at {@code now}; {@code runningCost} is by tenant slot ({@link Billing#runningCost}). */
    PoolTick clear(PoolBook b, Instant now, long[] runningCost, List<MarketEvent> events) {
        ClearingScratch s = scratch;
        b.compact();
        s.start(b, runningCost);
        readDemand.read(s, now, events);
        long aheadUpTo = b.lastPrice == null ? Long.MAX_VALUE : BidOrder.lastKeyAtOrAbove(b.lastPrice.micros());
        long lowest = ClearingPolicy.sortAndWalk(s.keys, s.bidders, aheadUpTo, b.nodesAt, s.slots, s.idleBySlot,
                b.supply - s.committed - s.idleTotal, s.accepted);
        Money price = ClearingPricePolicy.price(s.reserve, lowest);
        reclaim.reclaim(s, price, now, events);
        grant.grant(s, price, now, events);
        reasons.give(s, price, s.highestAdmitted(), now, events);
        s.finish();
        b.lastPrice = price;
        return new PoolTick(now, b.pool.id(), price, b.pool.reserve(), b.supply, b.free.size(), s.demand,
                s.waitingNodes, b.granted);
    }
}
