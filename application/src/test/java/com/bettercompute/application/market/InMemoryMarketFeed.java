package com.bettercompute.application.market;

import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The feed in memory, one entry per (pool, time), each with the sequence it was first appended under. */
public final class InMemoryMarketFeed implements MarketFeed {
    private record Key(PoolId pool, Instant at) {
    }

    private final TreeMap<Long, PoolTick> bySequence = new TreeMap<>();
    private final Map<Key, Long> sequences = new HashMap<>();
    private long last;

    @Override
    public synchronized void append(List<PoolTick> entries) {
        for (PoolTick t : entries) {
            long sequence = sequences.computeIfAbsent(new Key(t.pool(), t.at()), k -> ++last);
            bySequence.put(sequence, t);
        }
    }

    @Override
    public synchronized List<PoolTick> latest(PoolId pool, int limit) {
        List<PoolTick> all = new ArrayList<>();
        for (PoolTick t : bySequence.values()) {
            if (t.pool().equals(pool)) {
                all.add(t);
            }
        }
        return all.subList(Math.max(0, all.size() - limit), all.size());
    }

    @Override
    public synchronized List<FeedEntry> after(long after, PoolId pool, int limit) {
        List<FeedEntry> out = new ArrayList<>();
        for (Map.Entry<Long, PoolTick> e : bySequence.tailMap(after, false).entrySet()) {
            if (out.size() >= limit) {
                break;
            }
            if (pool == null || e.getValue().pool().equals(pool)) {
                out.add(new FeedEntry(e.getKey(), e.getValue()));
            }
        }
        return out;
    }
}
