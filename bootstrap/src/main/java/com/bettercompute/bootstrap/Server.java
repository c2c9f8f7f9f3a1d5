package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.AdmissionKeys;
import com.bettercompute.adapters.http.AdmissionServer;
import com.bettercompute.adapters.http.ApiServer;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.application.admission.AdmitWorkload;
import com.bettercompute.application.admission.MutateWorkload;
import com.bettercompute.application.admission.ReadMarketFacts;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.adapters.http.JoseIdTokenSigner;
import com.bettercompute.adapters.http.SignInUseCases;
import com.bettercompute.adapters.persistence.JdbiSignInRepository;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.signin.ConnectKubeconfig;
import com.bettercompute.application.signin.SignIn;
import com.bettercompute.application.signin.SignInClusters;
import com.bettercompute.adapters.http.Operations;
import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.adapters.k8s.Fabric8TenantClusterClient;
import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.cluster.IssueCredentials;
import com.bettercompute.adapters.http.ApiUseCases;
import com.bettercompute.adapters.http.NodePoolUseCases;
import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.GetNodePool;
import com.bettercompute.application.nodepool.ListNodePools;
import com.bettercompute.application.nodepool.UpdateNodePool;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.adapters.http.console.Console;
import com.bettercompute.adapters.http.console.ConsoleUseCases;
import com.bettercompute.application.market.ReadMarketCluster;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.market.Bids;
import com.bettercompute.application.market.ChangeReservePrice;
import com.bettercompute.application.market.ChangeSupply;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.EnrolReadyCluster;
import com.bettercompute.application.market.ListClusterRequests;
import com.bettercompute.application.market.LoadMarketCatalog;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.MarketCatalog;
import com.bettercompute.application.market.ReadBalance;
import com.bettercompute.application.market.ReadGpuUsage;
import com.bettercompute.application.market.ReadMarketFeed;
import com.bettercompute.application.market.RemoveMarketCluster;
import com.bettercompute.application.market.ReportNodeBack;
import com.bettercompute.application.market.ReportNodeOutOfService;
import com.bettercompute.application.market.TopUpCredits;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.cluster.DeleteCluster;
import com.bettercompute.application.cluster.GetCluster;
import com.bettercompute.application.cluster.ListClusters;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.cluster.UpdateCluster;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.cluster.ListVersions;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.application.usage.ReadUsage;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.bootstrap.gke.GkeProviderSetup;
import com.bettercompute.bootstrap.catalog.CatalogFile;
import com.bettercompute.domain.catalog.Catalog;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Base64;

/**
 * The product wired by hand: the database, the catalog, the use cases and the HTTP API. One instance
 * is one running server; {@link #close()} stops it.
 */
public final class Server implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Server.class);
    static final String DEMO_TOKEN_PLACEHOLDER = "${DEMO_TOKEN}";

    /** How long the provider's version lists are kept. */
    static final Duration VERSIONS_TTL = Duration.ofSeconds(60);
    /** How long a replica may act on a catalog another replica has since loaded (its own load is seen at once). */
    static final Duration CATALOG_TTL = Duration.ofSeconds(5);
    /** How long a replica holds a cluster while it reconciles it; a crashed replica's lease expires after this. */
    static final Duration LEASE = Duration.ofSeconds(60);
    /** How long a stop waits for the reconcile passes in flight: inside the 30 s a stop may take. */
    static final Duration RECONCILE_DRAIN = Duration.ofSeconds(20);

    /** How long a call inside a tenant cluster may take (connect, and each request). */
    static final int TENANT_CLUSTER_TIMEOUT_MILLIS = 10_000;

    private final Database database;
    /** Null on H2 (nothing to hear: one process). */
    private final ChangeListening changes;
    private final Fabric8TenantClusterClient tenantClusters;
    private final GkeProviderSetup provider;
    private final ReconcileWorker reconciler;
    private final ApiServer api;
    private final int port;
    private final String demoToken;
    private final Metrics metrics;
    private final Readiness readiness;
    private final MarketModule market;
    private final Admission admission;
    /** Null where the reconcilers do not run. */
    private final LoadBalancerModule loadBalancers;
    private final VolumeModule volumes;
    private boolean closed;

    /** The admission webhooks this server serves: their server, port, CA and each cluster's URLs. */
    record Admission(AdmissionServer server, int port, String caPem, PathTokens endpoints) {
        @Override
        public String toString() {
            return "Admission[port=" + port + "]";
        }
    }

    private Server(Database database, ChangeListening changes, GkeProviderSetup provider, ReconcileWorker reconciler, ApiServer api, int port, String demoToken,
                   Fabric8TenantClusterClient tenantClusters, Metrics metrics, Readiness readiness, MarketModule market,
                   Admission admission, LoadBalancerModule loadBalancers, VolumeModule volumes) {
        this.loadBalancers = loadBalancers;
        this.volumes = volumes;
        this.market = market;
        this.admission = admission;
        this.metrics = metrics;
        this.readiness = readiness;
        this.tenantClusters = tenantClusters;
        this.database = database;
        this.changes = changes;
        this.provider = provider;
        this.reconciler = reconciler;
        this.api = api;
        this.port = port;
        this.demoToken = demoToken;
    }

    /** {@link #start(ServerConfig, AdmissionConfig, Clock)} with the admission webhooks on any free port. */
    public static Server start(ServerConfig config, Clock clock) {
        return start(config, AdmissionConfig.defaults(), clock);
    }

    /**
     * Opens the database, loads the catalog, starts the admission webhooks and the API. A bad catalog stops the
     * start (CatalogException).
     */
    public static Server start(ServerConfig config, AdmissionConfig admissionConfig, Clock wallClock) {
        Clock clock = new MicrosecondClock(wallClock);
        String demoToken = null;
        String catalogText;
        if (config.catalog() == null) {
            demoToken = newDemoToken();
            catalogText = demoCatalog().replace(DEMO_TOKEN_PLACEHOLDER, demoToken);
        } else {
            try {
                catalogText = Files.readString(config.catalog(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("the catalog file " + config.catalog() + " cannot be read: " + e.getMessage());
            }
        }
        CatalogFile.Parsed parsed = CatalogFile.parseAll(catalogText);
        Catalog catalog = parsed.catalog();
        Database db = Database.open(config.db(), null, null, CaffeineJdbiCaches::new);
        // on PostgreSQL: hears the other replicas' market saves and cluster writes (what is kept in memory)
        ChangeListening changes = db.newChangeListener().map(l -> ChangeListening.start(l, "db-changes")).orElse(null);
        GkeProviderSetup provider = null;
        ReconcileWorker reconciler = null;
        Fabric8TenantClusterClient tenantClusters = null;
        Metrics metrics = new Metrics();
        Readiness readiness = new Readiness();
        MarketModule market = null;
        Admission admission = null;
        LoadBalancerModule loadBalancers = null;
        VolumeModule volumes = null;
        try {
            // every use case reads the catalog through the cache; the load empties it
            CatalogCache cache = new CatalogCache(db.catalog(), db.access(), CATALOG_TTL);
            new LoadCatalog(db.transactions(), cache.catalog(), cache.access()).load(catalog);
            // ---- the market: its stores and the tick loop (one replica at a time ticks), then the catalog's market ----
            market = MarketModule.start(db, clock, Duration.ofSeconds(config.marketTickSeconds()), config.reconcile(), metrics);
            new LoadMarketCatalog(market.transactions(), market.markets(), market.ledger(), db.clusters(), clock).load(parsed.market());
            // the platform's base URL: --public-url, else the API's own once it listens
            java.util.concurrent.atomic.AtomicReference<String> issuer = new java.util.concurrent.atomic.AtomicReference<>(config.publicUrl());
            provider = GkeProviderSetup.from(config.provider(), config.gkeEndpoint(),
                    Duration.ofSeconds(config.simOperationSeconds()), clock, config.simulatorStateDir());
            GkeProviderSetup setup = provider;
            Map<String, ClusterProvider> cached = new ConcurrentHashMap<>();
            ClusterProviders providers = account -> cached.computeIfAbsent(account.id() + "\n" + account.credentialsFile(),
                    k -> new CachingClusterProvider(new MeteringClusterProvider(setup.provider(account), metrics), VERSIONS_TTL));
            Cadence cadence = Cadence.of(Duration.ofSeconds(config.reconcileConvergingSeconds()),
                    Duration.ofSeconds(config.reconcileSettledSeconds()));
            // ---- shared volumes: made with their clusters, looked after by the volume loop (VolumeModule) ----
            volumes = VolumeModule.start(config, db, market.markets(), cache.catalog(), parsed.storage(), cadence, clock);
            ReconcileCluster reconcile = new ReconcileCluster(db.transactions(), db.clusters(), cache.catalog(), cache.access(),
                    db.outbox(), db.usage(), providers, cadence, clock,
                    new EnrolReadyCluster(market.transactions(), market.markets(), db.clusters(), parsed.market(), clock),
                    volumes.clusterVolumes());
            // ---- launch admission: the webhooks the market-managed clusters call (before the clusters are told where) ----
            admission = startAdmission(config, admissionConfig, market, db, clock);
            if (config.reconcile()) {
                // The market inside its tenant clusters runs where the reconcilers run.
                market.startInCluster(db.clusters(), cache.catalog(), providers, parsed.market(), admission.endpoints(), config.replicaId());
                loadBalancers = LoadBalancerModule.start(db, cache.catalog(), providers, setup::loadBalancers, parsed.loadBalancers(),
                        admission.endpoints(), metrics, clock);
                reconciler = new ReconcileWorker(db.clusters(), reconcile, clock, config.replicaId(), LEASE,
                        Duration.ofMillis(500), 4, RECONCILE_DRAIN,
                        (pass, took) -> metrics.reconcilePass(pass.outcome().name().toLowerCase(java.util.Locale.ROOT), took.toNanos()));
                volumes.startLoop();
            }
            // ---- the operator's view: metrics and readiness ----
            metrics.database(db, clock);
            readiness.check("database", () -> db.readinessProblem((int) Readiness.TIMEOUT.toSeconds()));
            providerProbe(catalog, setup, metrics).ifPresent(probe -> readiness.check("provider", probe));
            Operations operations = new Operations() {
                @Override
                public Map<String, String> missing() {
                    return readiness.missing();
                }

                @Override
                public String scrape() {
                    return metrics.scrape();
                }

                @Override
                public Completion arrived() {
                    return metrics.arrived();
                }
            };
            Authorizer authorizer = new Authorizer(cache.access());
            tenantClusters = new Fabric8TenantClusterClient(TENANT_CLUSTER_TIMEOUT_MILLIS);
            IssueCredentials issueCredentials = new IssueCredentials(db.transactions(), db.clusters(), cache.catalog(), db.outbox(),
                    authorizer, providers, tenantClusters, config.credentialTtlSeconds(), clock);
            ApiUseCases useCases = new ApiUseCases(
                    new Authenticate(cache.access()),
                    new CreateCluster(db.clusters(), cache.catalog(), authorizer, clock),
                    new ListClusters(db.clusters(), authorizer),
                    new GetCluster(db.clusters(), authorizer),
                    new UpdateCluster(db.transactions(), db.clusters(), authorizer, clock),
                    new DeleteCluster(db.transactions(), db.clusters(), db.outbox(), authorizer, clock, db.volumes()),
                    new ListVersions(cache.catalog(), authorizer, providers),
                    new ReadEvents(db.outbox(), new ReadableClusters(db.clusters(), authorizer)),
                    new ReadUsage(db.usage(), new ReadableClusters(db.clusters(), authorizer), db.storageLedger()),
                    issueCredentials);
            NodePoolUseCases nodePools = new NodePoolUseCases(
                    new CreateNodePool(db.transactions(), db.clusters(), cache.catalog(), db.outbox(), authorizer, clock),
                    new ListNodePools(db.clusters(), authorizer),
                    new GetNodePool(db.clusters(), authorizer),
                    new UpdateNodePool(db.transactions(), db.clusters(), authorizer, clock),
                    new DeleteNodePool(db.transactions(), db.clusters(), db.outbox(), authorizer, clock));
            SignInUseCases signIn = signInUseCases(config, db, cache, authorizer, providers, tenantClusters, issuer::get, clock);
            MarketUseCases marketUseCases = marketUseCases(market, db, cache, authorizer, parsed.market(), clock);
            VolumeUseCases volumeUseCases = volumes.useCases(authorizer,
                    new MarketCallers(cache.access(), db.clusters(), new ClusterLookup(db.clusters(), authorizer)), parsed.storage());
            ListLoadBalancers listLoadBalancers = LoadBalancerModule.list(db, authorizer);
            ApiServer api = new ApiServer(useCases, nodePools, new RequestLimits(config.requestLimits(), clock), operations,
                    marketUseCases, signIn, new Console(useCases, nodePools, marketUseCases,
                    consoleUseCases(market, db, cache, authorizer, clock, listLoadBalancers), volumeUseCases, clock),
                    volumeUseCases, listLoadBalancers);
            int port = api.start(config.host(), config.port());
            issuer.compareAndSet(null, "http://" + ServeCommand.displayHost(config.host()) + ":" + port);
            return new Server(db, changes, provider, reconciler, api, port, demoToken, tenantClusters, metrics, readiness, market,
                    admission, loadBalancers, volumes);
        } catch (RuntimeException e) {
            if (admission != null) {
                admission.server().stop();
            }
            if (loadBalancers != null) {
                loadBalancers.close();
            }
            if (market != null) {
                market.close();
            }
            if (reconciler != null) {
                reconciler.close();
            }
            if (volumes != null) {
                volumes.close();
            }
            if (tenantClusters != null) {
                tenantClusters.close();
            }
            if (provider != null) {
                provider.close();
            }
            metrics.close();
            readiness.close();
            if (changes != null) {
                changes.close();
            }
            db.close();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    /**
     * The admission webhooks over HTTPS: their keys kept in the data directory (in memory without one), their
     * serving certificate naming this machine's loopback names, the listen host and the host of
     * {@code --admission-url}.
     */
    static Admission startAdmission(ServerConfig config, AdmissionConfig admissionConfig, MarketModule market,
                                    Database db, Clock clock) {
        java.util.LinkedHashSet<String> hosts = new java.util.LinkedHashSet<>(java.util.List.of("localhost", "127.0.0.1", "::1"));
        if (!config.host().equals("0.0.0.0") && !config.host().equals("::")) {
            hosts.add(config.host());
        }
        if (admissionConfig.url() != null) {
            String host = java.net.URI.create(admissionConfig.url()).getHost();
            if (host == null) {
                throw new IllegalArgumentException("option --admission-url must be https://HOST[:PORT], not " + admissionConfig.url());
            }
            hosts.add(host);
        }
        AdmissionKeys keys = AdmissionKeys.open(config.dataDir(), java.util.List.copyOf(hosts), clock);
        PathTokens tokens = new PathTokens(keys.pathTokenKey(), keys.caPem());
        AdmissionServer server = new AdmissionServer(
                new AdmitWorkload(new CachedMarketFacts(new ReadMarketFacts(market.markets(), db.clusters()),
                        market.markets()::version),
                        admissionConfig.platformUsers()), new MutateWorkload(),
                tokens, keys.sslContext());
        int port = server.start(config.host(), admissionConfig.port());
        String base = admissionConfig.url() != null ? admissionConfig.url()
                : "https://" + displayHost(config.host()) + ":" + port;
        return new Admission(server, port, keys.caPem(), tokens.at(base));
    }

    private static String displayHost(String host) {
        String h = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
        return h.contains(":") ? "[" + h + "]" : h;
    }

    /** The port the admission webhooks answer on (HTTPS). */
    public int admissionPort() {
        return admission.port();
    }

    /** The CA (PEM) that signs the admission webhooks' serving certificate: the clusters' {@code caBundle}. */
    public String admissionCaPem() {
        return admission.caPem();
    }

    /** Each cluster's webhook URLs, as this server registers them. */
    public AdmissionEndpoints admissionEndpoints() {
        return admission.endpoints();
    }

    /**
     * The market's routes (API.md, "The market API") over the market module's stores; principals and the
     * catalog are read through the same cache as every other route's.
     */
    static MarketUseCases marketUseCases(MarketModule market, Database db, CatalogCache cache, Authorizer authorizer,
                                         MarketCatalog catalog, Clock clock) {
        var tx = market.transactions();
        var markets = market.markets();
        MarketCallers callers = new MarketCallers(cache.access(), db.clusters(), new ClusterLookup(db.clusters(), authorizer));
        return new MarketUseCases(
                new Bids(tx, callers, markets, clock),
                new ListClusterRequests(callers, markets),
                new ReadMarketFeed(market.feed(), markets),
                new ReadBalance(callers, authorizer, markets, market.ledger(), db.storageLedger()),
                new ChangeReservePrice(tx, markets),
                new ChangeSupply(tx, markets, clock),
                new ReportNodeOutOfService(tx, markets, market.outbox(), clock),
                new ReportNodeBack(tx, markets, market.outbox(), clock),
                new TopUpCredits(tx, markets, market.ledger(), cache.catalog(), clock),
                new EnrolCluster(tx, markets, db.clusters(), catalog, clock),
                new RemoveMarketCluster(tx, markets),
                new ReadGpuUsage(market.ledger(), new ReadableClusters(db.clusters(), authorizer)));
    }

    /** Requests a minute one client address may send to the public onboarding route. */
    static final int ONBOARDING_PER_MINUTE = 10;

    /**
     * Sign-in to clusters (docs/decisions/sign-in.md): the platform as their OpenID Connect
     * provider, its keys shared by the replicas in the database ({@link SignInKeys}).
     */
    static SignInUseCases signInUseCases(ServerConfig config, Database db, CatalogCache cache, Authorizer authorizer,
                                         ClusterProviders providers, Fabric8TenantClusterClient tenantClusters,
                                         java.util.function.Supplier<String> issuer, Clock clock) {
        JoseIdTokenSigner keys = SignInKeys.signer(config, db, clock);
        SignInClusters clusters = new SignInClusters(db.clusters(), cache.catalog());
        SignIn signIn = new SignIn(db.transactions(), new JdbiSignInRepository(db.jdbi()), clusters, authorizer,
                new ClusterConnections(db.clusters(), cache.catalog(), providers), tenantClusters, keys, issuer, clock);
        int removed = signIn.removeStale();
        if (removed > 0) {
            LOG.info("sign-in: {} expired codes and lapsed refresh tokens removed", removed);
        }
        MarketCallers callers = new MarketCallers(cache.access(), db.clusters(), new ClusterLookup(db.clusters(), authorizer));
        return new SignInUseCases(signIn, new ConnectKubeconfig(callers, clusters, issuer), keys, issuer, ONBOARDING_PER_MINUTE, clock);
    }

    /** What the console reads beside the API's use cases, over the same stores and the same cache; its sessions in the database. */
    static ConsoleUseCases consoleUseCases(MarketModule market, Database db, CatalogCache cache, Authorizer authorizer, Clock clock,
                                           ListLoadBalancers loadBalancers) {
        MarketCallers callers = new MarketCallers(cache.access(), db.clusters(), new ClusterLookup(db.clusters(), authorizer));
        return new ConsoleUseCases(callers, new ReadMarketCluster(callers, market.markets()),
                new ConsoleSessions(db.consoleSessions(), clock), loadBalancers);
    }

    /** The demo principal's API token when the demo catalog was loaded, else null. Printed once, never logged. */
    public String demoToken() {
        return demoToken;
    }

    /** The embedded GKE simulator's endpoints, when it runs in this process. */
    public Optional<String> simulatorBanner() {
        return provider.simulator().map(GkeSimulator::banner);
    }

    /** The embedded simulator's clusters' Kubernetes APIs, when the simulator runs in this process. */
    public Optional<SimulatedKubernetesApis> kubernetesApis() {
        return provider.kubernetesApis();
    }

    /** Reconcile passes this server has run (0 without a reconciler). */
    public long reconcilePasses() {
        return reconciler == null ? 0 : reconciler.passes();
    }

    /** The market: its stores, its tick, the ticks this replica ran. */
    public MarketModule market() {
        return market;
    }

    /** The embedded simulator's Filestore API, when it runs in this process. */
    public Optional<com.bettercompute.adapters.gke.simulator.FilestoreSimulator> filestoreSimulator() {
        return volumes.simulator();
    }

    /** The embedded GKE simulator, for tests that inject faults. */
    public Optional<GkeSimulator> simulator() {
        return provider.simulator();
    }

    /**
     * Is the provider reachable? Asks it for the versions of the first managed-Kubernetes account's first zone:
     * the cheapest call that needs the account's credentials. Empty when the catalog has no account to ask with.
     */
    private static Optional<java.util.function.Supplier<Optional<String>>> providerProbe(Catalog catalog, GkeProviderSetup setup,
                                                                                         Metrics metrics) {
        java.util.Set<String> managed = new java.util.HashSet<>();
        catalog.providers().stream().filter(p -> p.managedKubernetes()).forEach(p -> managed.add(p.id()));
        return catalog.accounts().stream().filter(a -> managed.contains(a.providerId()) && !a.zones().isEmpty()).findFirst().map(account -> {
            ClusterProvider probed = new MeteringClusterProvider(setup.provider(account), metrics);
            return () -> {
                try {
                    probed.serverConfig(account.cloudProject(), account.zones().get(0));
                    return Optional.empty();
                } catch (ProviderException e) {
                    return Optional.of("does not answer (" + e.kind().name().toLowerCase(java.util.Locale.ROOT) + ")");
                }
            };
        });
    }

    /**
     * Stops in the order that loses nothing: readiness turns 503; the API refuses new connections and
     * finishes the requests under way; the reconciler takes no new pass and finishes those under way, each
     * giving its lease back; the market tick under way finishes and its lock is given back; then the clients of the
     * tenant clusters, the provider, and the database last. A second call waits for the first.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        StringBuilder took = new StringBuilder("stopped:");
        long start = System.nanoTime();
        readiness.stopping();
        api.stop();
        admission.server().stop();
        start = step(took, "api", start);
        if (reconciler != null) {
            reconciler.close();
        }
        volumes.close();
        start = step(took, "reconciler", start);
        market.close();
        if (loadBalancers != null) {
            loadBalancers.close();
        }
        start = step(took, "market", start);
        metrics.stopSampling();
        readiness.close();
        // the clients of the tenant clusters' APIs before the provider whose simulated clusters serve them
        tenantClusters.close();
        provider.close();
        start = step(took, "provider", start);
        if (changes != null) {
            changes.close();
        }
        database.close();
        step(took, "database", start);
        metrics.close();
        LOG.info("{}", took);
    }

    private static long step(StringBuilder took, String what, long since) {
        long now = System.nanoTime();
        took.append(' ').append(what).append(' ').append((now - since) / 1_000_000).append(" ms");
        return now;
    }

    static String demoCatalog() {
        try (InputStream in = Server.class.getResourceAsStream("/demo-catalog.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String newDemoToken() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return "bc_demo_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
