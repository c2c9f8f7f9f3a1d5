package com.bettercompute.application.market;

import com.bettercompute.domain.market.PoolTick;

/** A market feed entry with its sequence: the cursor a reader resumes after. */
public record FeedEntry(long sequence, PoolTick tick) {
}
