package com.bettercompute.application.market;

import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.util.List;

/** The public market feed: per pool and tick, the price (null when nothing cleared), supply, free, demand, granted. */
public interface MarketFeed {
    /**
     * Appends one tick's entries, each given the next sequence. Appending the same (time, pool) again
     * replaces the entry and keeps its first sequence.
     */
    void append(List<PoolTick> ticks);

    /** The latest {@code limit} entries of a pool, oldest first. */
    List<PoolTick> latest(PoolId pool, int limit);

    /**
     * Entries with a sequence above {@code after}, ascending, at most {@code limit}; {@code pool} null for
     * every pool. Sequences strictly increase and are never reused, across restarts too.
     */
    List<FeedEntry> after(long after, PoolId pool, int limit);
}
