package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryEventOutbox;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.fakes.InMemoryMarketFeed;
import com.bettercompute.application.fakes.InMemoryMarketLedger;
import com.bettercompute.application.fakes.InMemoryMarketRepository;
import com.bettercompute.application.fakes.InMemoryStore;
import com.bettercompute.application.fakes.InMemoryTransactions;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.market.ReportNodeReady;
import com.bettercompute.application.market.RunMarketTick;
import com.bettercompute.application.market.SetLimitPrice;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.TickOutcome;

import java.time.Instant;

/**
 * A market with one pool {@code us-central1/h100-8x} of three 8-GPU nodes, tenants {@code acme} and
 * {@code beta} with a cluster each ({@code kcl_a}, {@code kcl_b}, max 64 GPUs), and acme's cluster as a fake
 * Kueue-run cluster.
 */
final class InClusterWorld {
    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    static final String SITE = "us-central1";
    static final PoolId POOL = new PoolId(SITE, "h100-8x");
    static final String A = "kcl_a";
    static final String B = "kcl_b";
    static final ClusterConnection CONNECTION = new ClusterConnection("https://a.example", "Y2E=", "token");

    final MutableClock clock = new MutableClock(T0);
    final InMemoryStore store = new InMemoryStore();
    final InMemoryMarketRepository markets = new InMemoryMarketRepository(store, clock);
    final InMemoryTransactions transactions = new InMemoryTransactions(store);
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final MarketEffects effects = events -> { };
    final InMemoryEventOutbox outbox = new InMemoryEventOutbox(store);
    final RunMarketTick tick;
    final SyncClusterDemand sync;
    final PublishRequestStatus publish;

    InClusterWorld() {
        Market market = markets.load();
        market.addPool(POOL, 8, Money.parse("1.20"));
        market.addNode("n1", POOL);
        market.addNode("n2", POOL);
        market.addNode("n3", POOL);
        market.addTenant("acme", Money.usd(10_000));
        market.addTenant("beta", Money.usd(10_000));
        market.addCluster(A, "acme", 64, null);
        market.addCluster(B, "beta", 64, null);
        markets.save(market);
        tick = new RunMarketTick(transactions, markets, new InMemoryMarketLedger(store), new InMemoryMarketFeed(store),
                outbox, effects, clock);
        sync = new SyncClusterDemand(transactions, markets, outbox, clock);
        publish = new PublishRequestStatus(markets, cluster, clock);
    }

    void limit(String clusterId, String usd) {
        new SetLimitPrice(transactions, markets).set(new SetLimitPrice.Command(clusterId, null, usd));
    }

    /** One pass of what the in-cluster loop does: demand in, then the statuses out. */
    void pass() {
        sync.sync(A, SITE, cluster.observed());
        publish.publish(A, CONNECTION, cluster.observed());
    }

    TickOutcome tick() {
        return tick.run();
    }

    void ready(String nodeId) {
        new ReportNodeReady(transactions, markets, outbox, effects, clock).report(new ReportNodeReady.Command(nodeId));
    }

    void readyAllGranted(TickOutcome outcome) {
        for (MarketEvent e : outcome.events()) {
            if (e instanceof MarketEvent.NodeGranted g) {
                ready(g.nodeId());
            }
        }
    }
}
