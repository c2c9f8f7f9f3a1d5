package com.bettercompute.application.admission;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Pool;
import com.bettercompute.domain.market.TenantCluster;

import java.util.List;
import java.util.Optional;

/** The admission facts of a cluster as the market and the cluster's record hold them at this moment (two reads). */
public final class ReadMarketFacts implements MarketFacts.Source {
    private final MarketRepository markets;
    private final ClusterRepository clusters;

    public ReadMarketFacts(MarketRepository markets, ClusterRepository clusters) {
        this.markets = markets;
        this.clusters = clusters;
    }

    @Override
    public Optional<MarketFacts> facts(String clusterId) {
        Market market = markets.load();
        if (!market.hasCluster(clusterId)) {
            return Optional.empty();
        }
        Optional<Cluster> cluster = clusters.find(clusterId);
        if (cluster.isEmpty()) {
            return Optional.empty();
        }
        String site = cluster.get().region();
        List<Pool> pools = market.pools().stream().filter(p -> p.id().site().equals(site)).toList();
        TenantCluster tc = market.cluster(clusterId);
        long balance = market.hasTenant(tc.tenantId()) ? Math.max(0, market.tenant(tc.tenantId()).balanceMicros()) : 0;
        return Optional.of(new MarketFacts(site, pools, tc.packing(), tc.limit(), balance, market.timings().balanceHorizon()));
    }
}
