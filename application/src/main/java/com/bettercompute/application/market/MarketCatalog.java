package com.bettercompute.application.market;

import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.util.List;
import java.util.Optional;

/**
 * The catalog's {@code market} section and the tenants' market settings (docs/tenants/market.md):
 * the market's durations, its pools, and per tenant its starting credits and, when market-managed, the
 * default max cluster size and packing of its clusters.
 */
public record MarketCatalog(MarketTimings timings, List<PoolSpec> pools, List<TenantSpec> tenants) {
    public static final MarketCatalog NONE = new MarketCatalog(MarketTimings.standard(), List.of(), List.of());

    public MarketCatalog {
        pools = List.copyOf(pools);
        tenants = List.copyOf(tenants);
    }

    /** A pool: what it sells (the account's capacity at a zone, a machine type and its GPUs) and how much. */
    public record PoolSpec(PoolId id, String accountId, String zone, String machineType, String acceleratorType,
                           int gpusPerNode, int nodes, Money reserve) {
    }

    /**
     * A tenant's market part: {@code credits} its starting balance (null: none), {@code settings} null when
     * its clusters are not market-managed.
     */
    public record TenantSpec(String tenantId, Money credits, Settings settings) {
    }

    /** A market-managed tenant's defaults for its clusters. */
    public record Settings(long maxClusterGpus, boolean packing) {
    }

    public Optional<TenantSpec> tenant(String tenantId) {
        return tenants.stream().filter(t -> t.tenantId().equals(tenantId)).findFirst();
    }

    /** Whether a region is a market site: some pool's site. */
    public boolean site(String region) {
        return pools.stream().anyMatch(p -> p.id().site().equals(region));
    }
}
