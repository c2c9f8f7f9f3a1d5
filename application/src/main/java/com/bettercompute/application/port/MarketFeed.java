package com.bettercompute.application.port;

import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.util.List;

/**
 * The public market feed: per pool and tick, the price (null when nothing cleared), supply, free, demand,
 * granted. Each entry has a sequence, increasing in append order and continuing across restarts, so a
 * reader resumes after the last one it saw.
 */
public interface MarketFeed {
    /** An entry with its sequence. */
    record Entry(long sequence, PoolTick tick) {
    }

    /**
     * Appends one tick's entries, in order, each with the next sequence. Appending an entry of a
     * (pool, time) already there replaces it and keeps its sequence. Takes part in the caller's transaction.
     */
    void append(List<PoolTick> ticks);

    /** Entries with a sequence above {@code after}, oldest first, at most {@code limit}; of one pool unless null. */
    List<Entry> after(long after, PoolId pool, int limit);

    /** The latest {@code limit} entries of a pool, oldest first. */
    List<PoolTick> latest(PoolId pool, int limit);
}
