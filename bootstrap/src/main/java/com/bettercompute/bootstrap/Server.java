package com.bettercompute.bootstrap;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.adapters.http.SignInUseCases;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.adapters.http.console.Console;
import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.port.AdmissionEndpoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The product wired by hand, one feature module after another (docs/decisions/composition-root.md). One instance is
 * one running server; {@link #close()} stops it.
 */
public final class Server implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Server.class);

    private final Closer closer;
    private final ServerCatalog catalog;
    private final ProviderModule provider;
    private final MarketModule market;
    private final AdmissionModule admission;
    private final VolumeModule volumes;
    private final ClustersModule clusters;
    private final ApiModule api;
    private boolean closed;

    private Server(Closer closer, ServerCatalog catalog, ProviderModule provider, MarketModule market, AdmissionModule admission,
                   VolumeModule volumes, ClustersModule clusters, ApiModule api) {
        this.volumes = volumes;
        this.closer = closer;
        this.catalog = catalog;
        this.provider = provider;
        this.market = market;
        this.admission = admission;
        this.clusters = clusters;
        this.api = api;
    }

    /** {@link #start(ServerConfig, AdmissionConfig, Clock)} with the admission webhooks on any free port. */
    public static Server start(ServerConfig config, Clock clock) {
        return start(config, AdmissionConfig.defaults(), clock);
    }

    /**
     * Starts every feature, each on those started before it; a start that fails half-way closes what it started and
     * throws. A bad catalog stops the start before anything runs (CatalogException).
     */
    public static Server start(ServerConfig config, AdmissionConfig admissionConfig, Clock wallClock) {
        Clock clock = new MicrosecondClock(wallClock);
        ServerCatalog catalog = ServerCatalog.read(config);
        // the platform's base URL, the sign-in's issuer: --public-url, else the API's own once it listens
        AtomicReference<String> issuer = new AtomicReference<>(config.publicUrl());
        Closer closer = new Closer();
        try {
            // first, so every part can count, and closed last
            Metrics metrics = closer.add("metrics", new Metrics());
            DatabaseModule data = DatabaseModule.start(config, catalog, closer);
            ProviderModule provider = ProviderModule.start(config, metrics, clock, closer);
            OperationsModule operations = OperationsModule.start(data, provider, catalog.parsed().catalog(), metrics, clock, closer);
            MarketModule market = MarketModule.start(data, catalog.parsed().market(), config, metrics, clock, closer);
            AdmissionModule admission = AdmissionModule.start(config, admissionConfig, data, market, clock, closer);
            if (config.reconcile()) {
                // the market and the load balancers inside the tenant clusters run where the reconcilers run
                market.startInCluster(data.db().clusters(), data.cache().catalog(), provider.providers(), catalog.parsed().market(),
                        admission.endpoints(), config.replicaId(), config.inClusterConcurrency(), closer);
                LoadBalancerModule.start(data, provider, catalog.parsed().loadBalancers(), admission, metrics, clock, closer);
            }
            VolumeModule volumes = VolumeModule.start(config, data, provider, market, admission, catalog.parsed().storage(), clock, closer);
            ClustersModule clusters = ClustersModule.start(config, data, provider, market, catalog.parsed().market(), volumes, metrics,
                    clock, closer);
            SignInUseCases signIn = SignInModule.start(config, data, provider, issuer::get, clock);
            MarketUseCases marketRoutes = market.useCases(data, catalog.parsed().market(), clock);
            VolumeUseCases volumeRoutes = volumes.useCases(data.authorizer(), data.callers(), catalog.parsed().storage());
            // who holds which address: every replica serves it from the saved rows, whether or not it runs the loop
            ListLoadBalancers loadBalancerRoutes = LoadBalancerModule.list(data);
            Console console = ConsoleModule.start(data, clusters, market, marketRoutes, volumeRoutes, loadBalancerRoutes, clock);
            ApiModule api = ApiModule.start(config, clusters, marketRoutes, signIn, volumeRoutes, loadBalancerRoutes, console, operations,
                    issuer, clock, closer);
            return new Server(closer, catalog, provider, market, admission, volumes, clusters, api);
        } catch (RuntimeException e) {
            closer.closeAfter(e);
            throw e;
        }
    }

    public int port() {
        return api.port();
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

    /** The demo principal's API token when the demo catalog was loaded, else null. Printed once, never logged. */
    public String demoToken() {
        return catalog.demoToken();
    }

    /** The embedded GKE simulator's endpoints, when it runs in this process. */
    public Optional<String> simulatorBanner() {
        return provider.setup().simulator().map(GkeSimulator::banner);
    }

    /** The embedded simulator's clusters' Kubernetes APIs, when the simulator runs in this process. */
    public Optional<SimulatedKubernetesApis> kubernetesApis() {
        return provider.setup().kubernetesApis();
    }

    /** Reconcile passes this server has run (0 without a reconciler). */
    public long reconcilePasses() {
        return clusters.reconcilePasses();
    }

    /** The market: its stores, its tick, the ticks this replica ran. */
    public MarketModule market() {
        return market;
    }

    /** The embedded simulator's Filestore API, when it runs in this process. */
    public Optional<FilestoreSimulator> filestoreSimulator() {
        return volumes.simulator();
    }

    /** The embedded GKE simulator, for tests that inject faults. */
    public Optional<GkeSimulator> simulator() {
        return provider.setup().simulator();
    }

    /**
     * Stops every feature in the reverse order of their start, which loses nothing: readiness turns 503 and the API
     * finishes the requests under way; the reconciler finishes the passes under way, each giving its lease back; the
     * market's loops finish and give their locks back; then the clients of the tenant clusters, the provider, and the
     * database last. A second call waits for the first.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LOG.info("{}", closer.close());
    }
}
