package com.bettercompute.bootstrap;

import com.bettercompute.application.admission.MarketFacts;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Cache;

import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The admission facts of each cluster, kept while the market's saved version holds (docs/decisions/admission.md): the validating webhook runs on every pod a tenant creates, and reading the whole market for each
 * would cost it its 5 ms, while the version costs no query while the replica hears the others' saves
 * ({@code ChangeSignal}; one row otherwise). A change (the packing switch, a top-up, a new limit price, a tick)
 * is a new version, so it binds admission from its commit on this replica, and on the others once
 * PostgreSQL's notification arrives (milliseconds). A read that fails is not kept: the next review reads
 * again (and fails closed meanwhile).
 */
final class CachedMarketFacts implements MarketFacts.Source {
    private record Kept(long version, Optional<MarketFacts> facts) {}

    private final MarketFacts.Source source;
    private final LongSupplier version;
    private final Cache<String, Kept> cache = Caffeine.newBuilder().maximumSize(100_000).build();

    CachedMarketFacts(MarketFacts.Source source, LongSupplier version) {
        this.source = source;
        this.version = version;
    }

    @Override
    public Optional<MarketFacts> facts(String clusterId) {
        long now = version.getAsLong();
        Kept kept = cache.getIfPresent(clusterId);
        if (kept != null && kept.version() == now) {
            return kept.facts();
        }
        // Read after the version: a save in between leaves newer facts under the older number, read again next time.
        Optional<MarketFacts> facts = source.facts(clusterId);
        cache.put(clusterId, new Kept(now, facts));
        return facts;
    }
}
