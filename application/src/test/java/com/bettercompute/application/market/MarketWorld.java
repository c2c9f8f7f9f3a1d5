package com.bettercompute.application.market;

import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.fakes.InMemoryMarketFeed;
import com.bettercompute.application.fakes.InMemoryMarketLedger;
import com.bettercompute.application.fakes.InMemoryMarketRepository;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The market's use cases on in-memory ports: tenants {@code acme} (market-managed, 5000 USD of catalog
 * credits) and {@code globex} (market-managed); one pool {@code us-central1/h100-8x} of 4 nodes at a 1.20
 * reserve; clusters named {@code train} in both tenants (ready, in us-central1) and {@code eu} in acme
 * (europe-west4, not a market site). Principals: alice (acme admin), dave (acme viewer), carol (globex
 * admin), ops (operator).
 */
public final class MarketWorld {
    public static final String POOL = "us-central1/h100-8x";
    public static final String ACME_TRAIN = "kcl_acmetrajn00000000000000000";
    public static final String GLOBEX_TRAIN = "kcl_gxbextrajn0000000000000000";
    public static final String ACME_EU = "kcl_acmeev00000000000000000000";
    public static final String ALICE = "token-user:alice@acme.example";
    public static final String DAVE = "token-user:dave@acme.example";
    public static final String CAROL = "token-user:carol@globex.example";
    public static final String OPS = "token-service:ops";

    public final InMemoryPorts ports = InMemoryPorts.create();
    public final Authorizer authorizer = new Authorizer(ports.access());
    public final Authenticate authenticate = new Authenticate(ports.access());
    public final InMemoryMarketRepository markets = ports.markets();
    public final InMemoryMarketLedger ledger = ports.marketLedger();
    public final InMemoryMarketFeed feed = ports.marketFeed();
    public final RecordingMarketEffects effects = new RecordingMarketEffects();
    public final MarketCatalog catalog = new MarketCatalog(MarketTimings.standard(),
            List.of(new MarketCatalog.PoolSpec(PoolId.parse(POOL), "acct_platform", "us-central1-a", "a3-highgpu-8g",
                    "nvidia-h100-80gb", 8, 4, Money.parse("1.20"))),
            List.of(new MarketCatalog.TenantSpec("acme", Money.usd(5000), new MarketCatalog.Settings(64, false)),
                    new MarketCatalog.TenantSpec("globex", Money.usd(100), new MarketCatalog.Settings(16, true))));
    public final MarketCallers callers = new MarketCallers(ports.access(), ports.clusters(),
            new ClusterLookup(ports.clusters(), authorizer));
    public final Bids bids = new Bids(ports.transactions(), callers, markets, ports.clock());
    public final ListClusterRequests requests = new ListClusterRequests(callers, markets);
    public final ReadBalance balance = new ReadBalance(callers, authorizer, markets, ledger);
    public final ReadMarketFeed readFeed = new ReadMarketFeed(feed, markets);
    public final TopUpCredits topUp;
    public final ChangeSupply supply;
    public final ChangeReservePrice reserve = new ChangeReservePrice(ports.transactions(), markets);
    public final EnrolCluster enrol;
    public final RemoveMarketCluster remove;
    public final ReadGpuUsage gpuUsage;
    public final RunMarketTick tick;
    public final LoadMarketCatalog loadMarket;

    public MarketWorld() {
        var p = ports;
        topUp = new TopUpCredits(p.transactions(), markets, ledger, p.catalog(), p.clock());
        supply = new ChangeSupply(p.transactions(), markets, p.clock());
        enrol = new EnrolCluster(p.transactions(), markets, p.clusters(), catalog, p.clock());
        remove = new RemoveMarketCluster(p.transactions(), markets);
        gpuUsage = new ReadGpuUsage(ledger, new ReadableClusters(p.clusters(), authorizer));
        tick = new RunMarketTick(p.transactions(), markets, ledger, feed, p.outbox(), effects, p.clock());
        loadMarket = new LoadMarketCatalog(p.transactions(), markets, ledger, p.clusters(), p.clock());
        new LoadCatalog(p.transactions(), p.catalog(), p.access()).load(new Catalog(
                List.of(new Provider("gcp", true)),
                List.of(new ProviderAccount("acct_platform", "gcp", "platform", "platform-prod",
                        List.of("us-central1-a", "europe-west4-a"))),
                List.of(new Pool("pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "acct_platform", PoolKind.PROVIDER, "provider",
                        BillingMode.METERED)),
                List.of(new Offer("pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "acme", true, List.of()),
                        new Offer("pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "globex", true, List.of())),
                List.of(new Tenant("acme", 10), new Tenant("globex", 10)),
                List.of(), List.of(), List.of(),
                List.of(principal("user:alice@acme.example", "acme", Role.KUBERNETES_ADMIN),
                        principal("user:dave@acme.example", "acme", Role.KUBERNETES_VIEWER),
                        principal("user:carol@globex.example", "globex", Role.KUBERNETES_ADMIN),
                        new CatalogPrincipal("service:ops", Ids.sha256Hex(OPS), true, List.of()))));
        insert(ACME_TRAIN, "acme", "train", "us-central1-a", "us-central1");
        insert(GLOBEX_TRAIN, "globex", "train", "us-central1-a", "us-central1");
        insert(ACME_EU, "acme", "eu", "europe-west4-a", "europe-west4");
        loadMarket.load(catalog);
    }

    public Caller caller(String token) {
        return authenticate.byToken(token);
    }

    private static CatalogPrincipal principal(String id, String tenant, Role role) {
        return new CatalogPrincipal(id, Ids.sha256Hex("token-" + id), false,
                List.of(new RoleBinding(id, tenant, null, role, Map.of())));
    }

    private void insert(String id, String tenant, String name, String location, String region) {
        Instant now = ports.clock().instant();
        Cluster c = new Cluster(id, tenant, null, "pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "acct_platform", name, null,
                ClusterMode.STANDARD, location, region, LocationType.ZONAL, ReleaseChannel.REGULAR, null, null, null, null,
                List.of(), false, null, null, ClusterState.READY, null, Ids.providerName(id), "user:alice@acme.example",
                "fp", 1, now, now, now, null, List.of(), Cluster.Progress.NONE);
        ports.transactions().inTransaction(() -> {
            ports.clusters().insert(c);
            return null;
        });
    }

    /** Files a job's request in a cluster, as Kueue would through the in-cluster adapter. */
    public RequestView file(String jobId, String clusterId, int gpus, String limitLabel) {
        return new FileMarketRequest(ports.transactions(), markets, ports.outbox(), ports.clock()).file(
                new FileMarketRequest.Command(jobId, clusterId, POOL, gpus, limitLabel, null));
    }

    /** Records a job its cluster's Kueue holds back for quota (over the max cluster size), as the in-cluster sync would. */
    public void hold(String jobId, String clusterId, int gpus) {
        ports.transactions().inTransaction(() -> {
            com.bettercompute.domain.market.Market market = markets.load();
            market.hold(new com.bettercompute.domain.market.JobDemand(jobId, clusterId,
                    com.bettercompute.domain.market.PoolId.parse(POOL), gpus, null, null), ports.clock().instant());
            markets.save(market);
            return null;
        });
    }

    /** A tick, then every node it granted reports ready at once, as the clusters would. */
    public void tickAndReady() {
        var outcome = tick.run();
        for (var e : outcome.events()) {
            if (e instanceof com.bettercompute.domain.market.MarketEvent.NodeGranted g) {
                new ReportNodeReady(ports.transactions(), markets, ports.outbox(), effects, ports.clock()).report(new ReportNodeReady.Command(g.nodeId()));
            }
        }
    }
}
