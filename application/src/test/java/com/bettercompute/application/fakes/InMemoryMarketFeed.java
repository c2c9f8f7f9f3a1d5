package com.bettercompute.application.fakes;

import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.util.List;
import java.util.ListIterator;

/** {@link MarketFeed} on an {@link InMemoryStore}: sequences from 1, one entry per (pool, time). */
public final class InMemoryMarketFeed implements MarketFeed {
    private final InMemoryStore store;

    public InMemoryMarketFeed(InMemoryStore store) {
        this.store = store;
    }

    public InMemoryMarketFeed() {
        this(new InMemoryStore());
    }

    @Override
    public void append(List<PoolTick> ticks) {
        store.lockedRun(s -> {
            for (PoolTick t : ticks) {
                boolean replaced = false;
                for (ListIterator<Entry> it = s.feed.listIterator(); it.hasNext(); ) {
                    Entry e = it.next();
                    if (e.tick().pool().equals(t.pool()) && e.tick().at().equals(t.at())) {
                        it.set(new Entry(e.sequence(), t));
                        replaced = true;
                    }
                }
                if (!replaced) {
                    s.feed.add(new Entry(++s.feedSequence, t));
                }
            }
        });
    }

    @Override
    public List<Entry> after(long after, PoolId pool, int limit) {
        return store.locked(s -> s.feed.stream().filter(e -> e.sequence() > after)
                .filter(e -> pool == null || e.tick().pool().equals(pool)).limit(Math.max(0, limit)).toList());
    }

    @Override
    public List<PoolTick> latest(PoolId pool, int limit) {
        return store.locked(s -> {
            List<PoolTick> all = s.feed.stream().map(Entry::tick).filter(t -> t.pool().equals(pool)).toList();
            return all.subList(Math.max(0, all.size() - Math.max(0, limit)), all.size());
        });
    }
}
