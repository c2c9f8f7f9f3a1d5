package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.ClusterReadiness;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.Market;
import java.time.Clock;

/**
 * A cluster of a market-managed tenant (one with {@code market} settings in the catalog) at a market
 * site (a pool's region) is enrolled in the market when it becomes ready, with its tenant's max cluster
 * size and packing. Idempotent: an enrolled cluster is left as it is.
 */
public final class EnrolReadyCluster implements ClusterReadiness {
    private final Transactions transactions;
    private final MarketRepository markets;
    private final MarketCatalog catalog;
    private final EnrolCluster enrol;
    private final Clock clock;

    public EnrolReadyCluster(Transactions transactions, MarketRepository markets, ClusterRepository clusters,
                             MarketCatalog catalog, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.catalog = catalog;
        this.enrol = new EnrolCluster(transactions, markets, clusters, catalog, clock);
        this.clock = clock;
    }

    @Override
    public void ready(Cluster cluster) {
        boolean managed = catalog.tenant(cluster.tenantId()).map(t -> t.settings() != null).orElse(false);
        if (!managed || !catalog.site(cluster.region())) {
            return;
        }
        transactions.inTransaction(() -> {
            Market market = markets.load();
            if (enrol.enrolIfAbsent(market, cluster, clock.instant())) {
                markets.save(market);
            }
            return null;
        });
    }
}
