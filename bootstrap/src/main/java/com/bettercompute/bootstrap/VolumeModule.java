package com.bettercompute.bootstrap;

import com.bettercompute.adapters.gke.FilestoreSharedVolumeProvider;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.SharedVolumeProviders;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.volume.ClusterVolumes;
import com.bettercompute.application.volume.DeleteVolume;
import com.bettercompute.application.volume.ListVolumes;
import com.bettercompute.application.volume.ReconcileVolume;
import com.bettercompute.application.volume.StorageSettings;
import com.bettercompute.bootstrap.gke.GkeProviderSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Shared volumes in the server (docs/decisions/shared-volumes.md): the Filestore provider of each account (see
 * {@link #start}), the volume's part of the cluster reconciler, the volume loop (fates, samples and billing, deletes) on
 * the replicas that reconcile, and the use cases of the routes and pages.
 */
public final class VolumeModule implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VolumeModule.class);
    /** How often the volume loop looks for volumes due; a volume's own next look is on its row. */
    static final Duration LOOP_EVERY = Duration.ofSeconds(2);
    static final int BATCH = 64;

    private final FilestoreSimulator simulator;
    /** The Filestore clients made so far (one per set of credentials), closed with the module. */
    private final Map<String, FilestoreSharedVolumeProvider> clients;
    private final ClusterVolumes clusterVolumes;
    private final ReconcileVolume reconcile;
    private final Database db;
    private final Clock clock;
    private ScheduledExecutorService loop;

    private VolumeModule(FilestoreSimulator simulator, Map<String, FilestoreSharedVolumeProvider> clients, SharedVolumeProviders providers,
                         Database db, MarketRepository markets, CatalogRepository catalog, StorageSettings settings, Cadence cadence, Clock clock) {
        this.simulator = simulator;
        this.clients = clients;
        this.db = db;
        this.clock = clock;
        this.clusterVolumes = new ClusterVolumes(db.transactions(), db.clusters(), db.volumes(), db.outbox(), providers, settings, cadence);
        this.reconcile = new ReconcileVolume(db.transactions(), db.volumes(), db.clusters(), catalog, db.outbox(), db.storageLedger(),
                markets, providers, settings, cadence, clock);
    }

    /**
     * Shared volumes of a server, as {@link #start(ServerConfig, Database, MarketRepository, CatalogRepository,
     * StorageSettings, Cadence, Clock)} sets the Filestore side; the volume loop where the reconcilers run; closed with
     * the server.
     */
    static VolumeModule start(ServerConfig config, DatabaseModule data, MarketModule market, StorageSettings settings, Clock clock,
                              Closer closer) {
        VolumeModule volumes = closer.add("volumes", start(config, data.db(), market.markets(), data.cache().catalog(), settings,
                ClustersModule.cadence(config), clock));
        if (config.reconcile()) {
            volumes.startLoop();
        }
        return volumes;
    }

    /**
     * Starts the Filestore side as the options say (docs/decisions/simulators.md): {@code --filestore-endpoint} wins
     * (one client for every account, nothing started); else with {@code --gke-endpoint} no Filestore API is known, which
     * stops the start if the catalog provisions volumes (a Filestore of this process alone would not be the other
     * replicas': two could make two volumes for one cluster); else {@code --provider gke} is real Filestore
     * (application-default credentials, or an account's own key file); else the simulator's Filestore API starts here
     * on the simulator's state directory.
     *
     * @param markets the market, where storage charges come off the tenant's balance
     */
    private static VolumeModule start(ServerConfig config, Database db, MarketRepository markets, CatalogRepository catalog,
                                      StorageSettings settings, Cadence cadence, Clock clock) {
        Map<String, FilestoreSharedVolumeProvider> clients = new ConcurrentHashMap<>();
        if (config.filestoreEndpoint() != null) {
            FilestoreSharedVolumeProvider.Endpoint endpoint = GkeProviderSetup.filestoreAt(config.filestoreEndpoint());
            return new VolumeModule(null, clients, account -> clients.computeIfAbsent("endpoint",
                    k -> FilestoreSharedVolumeProvider.at(endpoint, clock)), db, markets, catalog, settings, cadence, clock);
        }
        if (config.gkeEndpoint() != null) {
            if (!settings.pools().isEmpty()) {
                throw new IllegalArgumentException("the catalog provisions shared volumes and --gke-endpoint names no Filestore API: give "
                        + "--filestore-endpoint too (a standalone gke-simulator prints its own)");
            }
            SharedVolumeProviders none = account -> {
                throw new ProviderException(ProviderException.Kind.FAILED_PRECONDITION,
                        "No Filestore API is configured: start the server with --filestore-endpoint.");
            };
            return new VolumeModule(null, clients, none, db, markets, catalog, settings, cadence, clock);
        }
        if ("gke".equals(config.provider())) {
            SharedVolumeProviders google = account -> clients.computeIfAbsent(
                    account.credentialsFile() == null ? "default" : account.credentialsFile(),
                    k -> account.credentialsFile() == null ? FilestoreSharedVolumeProvider.google(clock)
                            : FilestoreSharedVolumeProvider.google(Path.of(account.credentialsFile()), clock));
            return new VolumeModule(null, clients, google, db, markets, catalog, settings, cadence, clock);
        }
        FilestoreSimulator simulator = FilestoreSimulator.start(clock, Duration.ofSeconds(config.simOperationSeconds()), 0,
                config.simulatorStateDir());
        // plaintext on loopback, no credentials: what GkeProviderSetup sets for the embedded GKE simulator too
        FilestoreSharedVolumeProvider.Endpoint endpoint = new FilestoreSharedVolumeProvider.Endpoint(simulator.url(), simulator.url(),
                Transport.PLAINTEXT, null);
        return new VolumeModule(simulator, clients, account -> clients.computeIfAbsent("simulator",
                k -> FilestoreSharedVolumeProvider.at(endpoint, clock)), db, markets, catalog, settings, cadence, clock);
    }

    /** The volume's part of each cluster's reconcile pass. */
    ClusterVolumes clusterVolumes() {
        return clusterVolumes;
    }

    /** Starts the volume loop (only where the reconcilers run). */
    void startLoop() {
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "volume-loop");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleWithFixedDelay(this::passSafely, 0, LOOP_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void passSafely() {
        try {
            List<String> due = db.volumes().due(clock.instant(), BATCH);
            for (String id : due) {
                reconcile.reconcile(id);
            }
        } catch (RuntimeException e) {
            LOG.warn("volume loop: {}", e.toString());
        }
    }

    /** The routes' and pages' use cases. */
    VolumeUseCases useCases(Authorizer authorizer, MarketCallers callers, StorageSettings settings) {
        return new VolumeUseCases(new ListVolumes(db.volumes(), db.storageLedger(), settings, authorizer),
                new DeleteVolume(db.volumes(), reconcile, authorizer, clock), callers);
    }

    /** The simulator's Filestore API, when it runs in this process: its address is worth printing. */
    public Optional<FilestoreSimulator> simulator() {
        return Optional.ofNullable(simulator);
    }

    @Override
    public void close() {
        if (loop != null) {
            loop.shutdown();
            try {
                loop.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        clients.values().forEach(FilestoreSharedVolumeProvider::close);
        if (simulator != null) {
            simulator.close();
        }
    }
}
