package com.bettercompute.application.volume;

import com.bettercompute.domain.volume.StoragePrice;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The operator's shared-storage settings, from the catalog: which pools provision a shared volume with each new cluster,
 * the sites (regions) where storage billing is enabled with their price per GiB-month, and how often the bytes each
 * volume holds are sampled.
 */
public record StorageSettings(Set<String> pools, Map<String, StoragePrice> prices, Duration sampleEvery) {
    public static final Duration DEFAULT_SAMPLE_EVERY = Duration.ofMinutes(1);
    /** No pool provisions shared storage; nothing is billed. */
    public static final StorageSettings NONE = new StorageSettings(Set.of(), Map.of(), DEFAULT_SAMPLE_EVERY);

    public StorageSettings {
        pools = Set.copyOf(pools);
        prices = Map.copyOf(prices);
    }

    public boolean provisions(String poolId) {
        return pools.contains(poolId);
    }

    /** The price where storage billing is enabled for the site; empty where it is not. */
    public Optional<StoragePrice> price(String site) {
        return Optional.ofNullable(prices.get(site));
    }
}
