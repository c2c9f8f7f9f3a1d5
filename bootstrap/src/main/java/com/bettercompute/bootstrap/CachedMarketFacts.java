package com.bettercompute.bootstrap;

import com.bettercompute.application.admission.MarketFacts;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.Ticker;

import java.time.Duration;
import java.util.Optional;

/**
 * The admission facts of each cluster kept for {@code freshness} (docs/decisions.md, "Launch admission"): the
 * validating webhook runs on every pod a tenant creates, and reading the whole market for each would cost it
 * its 5 ms. A change (the packing switch, a top-up, a new limit price) binds admission within that freshness.
 * A read that fails is not kept: the next review reads again (and fails closed meanwhile).
 */
final class CachedMarketFacts implements MarketFacts.Source {
    static final Duration FRESHNESS = Duration.ofSeconds(1);
    private final LoadingCache<String, Optional<MarketFacts>> cache;

    CachedMarketFacts(MarketFacts.Source source, Duration freshness, Ticker ticker) {
        this.cache = Caffeine.newBuilder().expireAfterWrite(freshness).maximumSize(100_000).ticker(ticker)
                .build(source::facts);
    }

    @Override
    public Optional<MarketFacts> facts(String clusterId) {
        return cache.get(clusterId);
    }
}
