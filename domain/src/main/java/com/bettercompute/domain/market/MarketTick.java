package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One tick over every pool (docs/decisions/market-pricing.md, "The tick"), read as its steps: notices and idle nodes due, billing
 * ({@link Billing}), idle nodes of tenants that ran out, nodes drained, the clusters' queues and blocks
 * ({@link ClusterQueues}), then each pool's clearing ({@link PoolClearing}). A pool whose clearing fails is
 * left as it stands and reported; the others clear.
 */
final class MarketTick {
    private final MarketState state;
    private final ClusterQueues queues;
    private final GrantLifecycle lifecycle;
    private final PoolClearing clearing;
    private long clearingFailures;

    MarketTick(MarketState state, ClusterQueues queues, GrantLifecycle lifecycle) {
        this.state = state;
        this.queues = queues;
        this.lifecycle = lifecycle;
        this.clearing = new PoolClearing(state, lifecycle);
    }

    TickOutcome run(Instant now) {
        if (state.lastTick != null && now.isBefore(state.lastTick)) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a tick never goes back in time",
                    Map.of("now", now.toString(), "lastTick", state.lastTick.toString()));
        }
        List<MarketEvent> events = new ArrayList<>(state.betweenTicks);
        state.betweenTicks.clear();
        // a price that moves closes the entry of every grant it bills, so room for one per grant
        Billing bills = new Billing(state.changes, state.timings(), state.grants.size() + 16, state.tenants.size());
        List<PoolTick> feed = new ArrayList<>(state.pools.size());
        List<PoolFailure> failures = new ArrayList<>();
        lifecycle.billWith(bills);
        try {
            lifecycle.expireNotices(now, events);
            lifecycle.releaseIdle(now, events);
            bills.bill(state.grants, now);
            lifecycle.releaseIdleOfRunOutTenants(now, events);
            lifecycle.releaseDrained(now);
            for (ClusterBook c : state.clusters.values()) {
                queues.admit(c, now, events);
                if (!c.blockWaiting.isEmpty()) {
                    queues.packBlock(c, now, events);
                }
            }
            long[] runningCost = bills.runningCost();
            for (PoolBook b : state.pools.values()) {
                try {
                    feed.add(clearing.clear(b, now, runningCost, events));
                } catch (RuntimeException e) {
                    clearingFailures++;
                    failures.add(new PoolFailure(b.pool.id(), String.valueOf(e)));
                }
            }
        } finally {
            lifecycle.billWith(null);
        }
        state.lastTick = now;
        return new TickOutcome(now, Collections.unmodifiableList(feed), Collections.unmodifiableList(events),
                Collections.unmodifiableList(bills.charges()), List.copyOf(failures));
    }

    /** How many pool clearings failed since this market was built or restored. */
    long clearingFailures() {
        return clearingFailures;
    }
}
