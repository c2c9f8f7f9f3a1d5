package com.bettercompute.bootstrap;

import com.bettercompute.adapters.k8s.Fabric8MarketClusterClient;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.incluster.CarryMarketIntoClusters;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.incluster.KeepClusterComponents;
import com.bettercompute.application.incluster.KeepPlatformObjects;
import com.bettercompute.application.incluster.PublishRequestStatus;
import com.bettercompute.application.incluster.ReconcileMarketNodes;
import com.bettercompute.application.incluster.SyncClusterDemand;
import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.market.Bids;
import com.bettercompute.application.market.ChangeReservePrice;
import com.bettercompute.application.market.ChangeSupply;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.ListClusterRequests;
import com.bettercompute.application.market.LoadMarketCatalog;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.MarketCatalog;
import com.bettercompute.application.market.ReadBalance;
import com.bettercompute.application.market.ReadGpuUsage;
import com.bettercompute.application.market.ReadMarketFeed;
import com.bettercompute.application.market.RemoveMarketCluster;
import com.bettercompute.application.market.ReportNodeBack;
import com.bettercompute.application.market.ReportNodeOutOfService;
import com.bettercompute.application.market.TopUpCredits;
import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.market.RunMarketTick;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.TickOutcome;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The market in the server: its stores on the database, the tick, and the loop that runs the tick every
 * {@code --market-tick-seconds} on one replica at a time. Built once per server; the market's use cases and
 * routes are built from its getters. Every market write runs as
 * {@code transactions().inTransaction(() -> { m = markets().load(); ...; markets().save(m); })} (see
 * {@link MarketRepository}).
 */
public final class MarketModule implements AutoCloseable {
    /** How long a stop waits for a tick under way. */
    static final Duration TICK_DRAIN = Duration.ofSeconds(15);
    /** How often the in-cluster loop passes over the clusters when nothing wakes it. */
    public static final Duration IN_CLUSTER_EVERY = Duration.ofSeconds(5);
    /**
     * How long a replica's in-cluster leases run without renewal: a replica that dies has its clusters taken over
     * this long after its last pass.
     */
    public static final Duration IN_CLUSTER_LEASE = Duration.ofSeconds(30);
    /** How often each cluster's platform objects are checked against what the market declares. */
    public static final Duration OBJECTS_EVERY = Duration.ofSeconds(60);
    static final int CLUSTER_API_TIMEOUT_MILLIS = 10_000;
    static final long WATCH_RESYNC_MILLIS = 30_000;

    /**
     * The tick's decisions reach the clusters through the in-cluster loop, which reads them from the saved
     * state (so a crash between the commit and the clusters replays them): applying them only wakes it.
     */
    private final WakingEffects effects;

    private final Database db;
    private final Clock clock;
    private final MarketRepository markets;
    private final RunMarketTick tick;
    private final MarketTickLoop loop;

    private MarketModule(Database db, Clock clock, MarketRepository markets, RunMarketTick tick, MarketTickLoop loop,
                         WakingEffects effects) {
        this.effects = effects;
        this.db = db;
        this.clock = clock;
        this.markets = markets;
        this.tick = tick;
        this.loop = loop;
    }

    /**
     * The market of a server: on its database, ticking every {@code --market-tick-seconds} where the reconcilers run,
     * with the catalog's market section loaded; closed with the server.
     */
    static MarketModule start(DatabaseModule data, MarketCatalog catalog, ServerConfig config, Metrics metrics, Clock clock,
                              Closer closer) {
        MarketModule market = closer.add("market",
                start(data.db(), clock, Duration.ofSeconds(config.marketTickSeconds()), config.reconcile(), metrics));
        new LoadMarketCatalog(market.transactions(), market.markets(), market.ledger(), data.db().clusters(), clock).load(catalog);
        return market;
    }

    /**
     * Builds the market on {@code db}; with {@code ticking}, starts the tick loop every {@code tickEvery}.
     * The market's clock counts in milliseconds, finer than any of its rules and exactly what both databases
     * keep, so a market reloaded after a restart is the one that was saved.
     */
    static MarketModule start(Database db, Clock clock, Duration tickEvery, boolean ticking, Metrics metrics) {
        Clock marketClock = Clock.tick(clock, Duration.ofMillis(1));
        MarketRepository markets = db.newMarketRepository(marketClock);
        WakingEffects effects = new WakingEffects();
        RunMarketTick tick = new RunMarketTick(db.transactions(), markets, db.marketLedger(), db.marketFeed(),
                db.outbox(), effects, marketClock);
        MarketTickLoop loop = !ticking ? null : new MarketTickLoop(tick, db.newMarketTickLock(), tickEvery, TICK_DRAIN,
                new MarketTickLoop.Listener() {
                    @Override
                    public void onTick(TickOutcome outcome, long nanos) {
                        metrics.marketTick(nanos, granted(outcome), reclaimed(outcome));
                        metrics.marketPoolFailures(outcome.failures().size());
                    }

                    @Override
                    public void onFailure(RuntimeException e) {
                        metrics.marketTickFailed();
                    }
                });
        return new MarketModule(db, marketClock, markets, tick, loop, effects);
    }

    /** A {@link MarketEffects} that wakes whoever carries decisions out; nothing until one is set. */
    static final class WakingEffects implements MarketEffects {
        private volatile Runnable wake = () -> { };

        @Override
        public void apply(List<MarketEvent> events) {
            if (!events.isEmpty()) {
                wake.run();
            }
        }
    }

    /**
     * Starts carrying the market out inside its tenant clusters (docs/decisions/market-in-cluster.md,
     * docs/decisions/in-cluster-loop.md): platform objects (with the admission webhooks' configurations of
     * {@code admission}), demand in, verdicts out, nodes; this replica works the clusters it holds a lease on, as
     * {@code replicaId}, {@code concurrency} clusters at once. Only where the reconcilers run. Its loop (with its
     * pool) and client are closed through {@code closer}: before the admission webhooks, which its writes into the
     * clusters go through.
     */
    void startInCluster(ClusterRepository clusters, CatalogRepository catalog, ClusterProviders providers,
                        MarketCatalog marketCatalog, AdmissionEndpoints admission, String replicaId, int concurrency,
                        Closer closer) {
        Fabric8MarketClusterClient clusterClient = closer.add("market-cluster-client", newClusterClient());
        ClusterConnections connections = new ClusterConnections(clusters, catalog, providers);
        CarryMarketIntoClusters.Steps steps = inClusterSteps(db, markets, clock, connections, clusterClient, catalog,
                providers, marketCatalog, admission);
        InClusterMarketLoop inCluster = closer.add("market-in-clusters", new InClusterMarketLoop(
                wake -> new CarryMarketIntoClusters(markets, db.inClusterLeases(), connections, clusterClient, steps, clock,
                        replicaId, IN_CLUSTER_LEASE, OBJECTS_EVERY, concurrency, wake), IN_CLUSTER_EVERY));
        effects.wake = inCluster::wake;
    }

    /** The client every replica reaches its clusters' Kubernetes APIs with, with the server's timeouts. */
    public static Fabric8MarketClusterClient newClusterClient() {
        return new Fabric8MarketClusterClient(CLUSTER_API_TIMEOUT_MILLIS, WATCH_RESYNC_MILLIS);
    }

    /**
     * The per-cluster steps of {@link CarryMarketIntoClusters} as the server wires them, on {@code db} and the market
     * read through {@code markets} (with the market's clock).
     */
    public static CarryMarketIntoClusters.Steps inClusterSteps(Database db, MarketRepository markets, Clock clock,
                                                               ClusterConnections connections, MarketClusterClient client,
                                                               CatalogRepository catalog, ClusterProviders providers,
                                                               MarketCatalog marketCatalog, AdmissionEndpoints admission) {
        return new CarryMarketIntoClusters.Steps(
                new KeepClusterComponents(connections, client),
                new KeepPlatformObjects(markets, connections, client, admission),
                new SyncClusterDemand(db.transactions(), markets, db.outbox(), clock),
                new PublishRequestStatus(markets, client, clock),
                new ReconcileMarketNodes(db.transactions(), markets, marketCatalog, connections, catalog, providers,
                        client, db.outbox(), clock));
    }

    /**
     * The market's routes (docs/tenants/market.md) over this module's stores; principals and the catalog are read
     * through the same cache as every other route's.
     */
    MarketUseCases useCases(DatabaseModule data, MarketCatalog catalog, Clock clock) {
        var tx = transactions();
        MarketCallers callers = data.callers();
        Authorizer authorizer = data.authorizer();
        return new MarketUseCases(
                new Bids(tx, callers, markets, clock),
                new ListClusterRequests(callers, markets),
                new ReadMarketFeed(feed(), markets),
                new ReadBalance(callers, authorizer, markets, ledger(), data.db().storageLedger()),
                new ChangeReservePrice(tx, markets),
                new ChangeSupply(tx, markets, clock),
                new ReportNodeOutOfService(tx, markets, outbox(), clock),
                new ReportNodeBack(tx, markets, outbox(), clock),
                new TopUpCredits(tx, markets, ledger(), data.cache().catalog(), clock),
                new EnrolCluster(tx, markets, data.db().clusters(), catalog, clock),
                new RemoveMarketCluster(tx, markets),
                new ReadGpuUsage(ledger(), new ReadableClusters(data.db().clusters(), authorizer)));
    }

    static int granted(TickOutcome outcome) {
        int n = 0;
        for (MarketEvent e : outcome.events()) {
            if (e instanceof MarketEvent.NodeGranted) {
                n++;
            }
        }
        return n;
    }

    static int reclaimed(TickOutcome outcome) {
        int n = 0;
        for (MarketEvent e : outcome.events()) {
            if (e instanceof MarketEvent.PreemptionNoticed p) {
                n += p.nodeIds().size();
            } else if (e instanceof MarketEvent.GangReclaimedAtOnce r) {
                n += r.nodeIds().size();
            }
        }
        return n;
    }

    public Transactions transactions() {
        return db.transactions();
    }

    public MarketRepository markets() {
        return markets;
    }

    public MarketLedger ledger() {
        return db.marketLedger();
    }

    public MarketFeed feed() {
        return db.marketFeed();
    }

    public EventOutbox outbox() {
        return db.outbox();
    }

    public MarketEffects effects() {
        return effects;
    }

    /** The market's clock (milliseconds): use it for every market use case. */
    public Clock clock() {
        return clock;
    }

    public RunMarketTick tick() {
        return tick;
    }

    /** Ticks this replica ran (0 when it does not tick). */
    public long ticks() {
        return loop == null ? 0 : loop.ticks();
    }

    /** Stops the loop after a tick under way and gives the tick lock back. */
    @Override
    public void close() {
        if (loop != null) {
            loop.close();
        }
    }
}
