package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Pool;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * Loads the catalog's market section into the market, through its ports (load, change, save), in one
 * transaction. Loading again updates and never duplicates: the durations replace the market's; a pool is
 * added once, then its reserve follows the catalog and its market nodes are added or removed to the
 * catalog's count (a removal reclaims as the rules say); a tenant's {@code credits} are its starting
 * balance, a top-up under the tenant's key {@code catalog} applied once, never again on a later start.
 * Last, the ready clusters of market-managed tenants at a market site that are not enrolled yet are
 * enrolled (a crash between a cluster becoming ready and its enrolment is caught up here).
 */
public final class LoadMarketCatalog {
    private static final int SCAN_LIMIT = 20_000;

    private final Transactions transactions;
    private final MarketRepository markets;
    private final MarketLedger ledger;
    private final ClusterRepository clusters;
    private final Clock clock;

    public LoadMarketCatalog(Transactions transactions, MarketRepository markets, MarketLedger ledger,
                             ClusterRepository clusters, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.ledger = ledger;
        this.clusters = clusters;
        this.clock = clock;
    }

    /** The idempotency key a tenant's catalog credits are recorded under. */
    public static final String CREDITS_KEY = "catalog";

    public void load(MarketCatalog catalog) {
        Instant now = clock.instant();
        transactions.inTransaction(() -> {
            Market market = markets.load();
            if (!market.timings().equals(catalog.timings())) {
                market.changeTimings(catalog.timings());
            }
            for (MarketCatalog.PoolSpec spec : catalog.pools()) {
                Pool existing = market.pools().stream().filter(p -> p.id().equals(spec.id())).findFirst().orElse(null);
                if (existing == null) {
                    market.addPool(spec.id(), spec.gpusPerNode(), spec.reserve());
                } else if (existing.gpusPerNode() != spec.gpusPerNode()) {
                    throw new DomainException(ErrorCode.INVALID_STATE, "pool " + spec.id() + " sells nodes of "
                            + existing.gpusPerNode() + " GPUs; the catalog says " + spec.gpusPerNode()
                            + " (a node class never changes its GPUs: give the pool another id)",
                            Map.of("pool", spec.id().toString()));
                } else {
                    market.changeReserve(spec.id(), spec.reserve());
                }
                Supply.resize(market, spec.id(), spec.nodes(), now);
            }
            for (MarketCatalog.TenantSpec t : catalog.tenants()) {
                if (!market.hasTenant(t.tenantId())) {
                    market.addTenant(t.tenantId(), com.bettercompute.domain.market.Money.ZERO);
                }
                if (t.credits() != null && ledger.credit(new MarketLedger.CreditTopUp(t.tenantId(), CREDITS_KEY,
                        t.credits(), "the catalog's starting credits", now))) {
                    market.credit(t.tenantId(), t.credits());
                }
            }
            EnrolCluster enrol = new EnrolCluster(transactions, markets, clusters, catalog, clock);
            for (MarketCatalog.TenantSpec t : catalog.tenants()) {
                if (t.settings() == null) {
                    continue;
                }
                for (Cluster c : clusters.list(new ClusterFilter(t.tenantId(), null, null, false), SCAN_LIMIT)) {
                    if (c.readyAt() != null && c.state() != ClusterState.DELETING && c.state() != ClusterState.DELETED
                            && catalog.site(c.region())) {
                        enrol.enrolIfAbsent(market, c, now);
                    }
                }
            }
            markets.save(market);
            return null;
        });
    }
}
