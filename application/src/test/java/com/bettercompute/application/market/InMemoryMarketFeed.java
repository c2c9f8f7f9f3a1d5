package com.bettercompute.application.market;

import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The feed in memory, one entry per (pool, time). */
public final class InMemoryMarketFeed implements MarketFeed {
    private final Map<PoolId, TreeMap<Instant, PoolTick>> ticks = new TreeMap<>();

    @Override
    public void append(List<PoolTick> entries) {
        for (PoolTick t : entries) {
            ticks.computeIfAbsent(t.pool(), p -> new TreeMap<>()).put(t.at(), t);
        }
    }

    @Override
    public List<PoolTick> latest(PoolId pool, int limit) {
        TreeMap<Instant, PoolTick> series = ticks.getOrDefault(pool, new TreeMap<>());
        List<PoolTick> all = new ArrayList<>(series.values());
        return all.subList(Math.max(0, all.size() - limit), all.size());
    }
}
