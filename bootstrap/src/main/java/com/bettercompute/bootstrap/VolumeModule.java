package com.bettercompute.bootstrap;

import com.bettercompute.adapters.gke.FilestoreSharedVolumeProvider;
import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.SharedVolumeProviders;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.volume.ClusterVolumes;
import com.bettercompute.application.volume.DeleteVolume;
import com.bettercompute.application.volume.ListVolumes;
import com.bettercompute.application.volume.ReconcileVolume;
import com.bettercompute.application.volume.StorageSettings;
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
 * Shared volumes in the server (docs/decisions/shared-volumes.md): the Filestore provider of each account (real
 * Filestore with {@code --provider gke}, else the GKE simulator's Filestore API, started here on the simulator's state
 * directory), the volume's part of the cluster reconciler, the volume loop (fates, samples and billing, deletes) on
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
                         Database db, CatalogRepository catalog, StorageSettings settings, Cadence cadence, Clock clock) {
        this.simulator = simulator;
        this.clients = clients;
        this.db = db;
        this.clock = clock;
        this.clusterVolumes = new ClusterVolumes(db.transactions(), db.clusters(), db.volumes(), db.outbox(), providers, settings, cadence);
        this.reconcile = new ReconcileVolume(db.transactions(), db.volumes(), db.clusters(), catalog, db.outbox(), db.storageLedger(),
                providers, settings, cadence, clock);
    }

    /**
     * @param provider       {@code gke}: real Filestore (application-default credentials, or an account's own key file);
     *                       anything else: the simulator's Filestore API on {@code simulatorState} (null: in memory)
     * @param simOperation   how long the simulated Filestore's operations take
     */
    static VolumeModule start(String provider, Duration simOperation, Path simulatorState, Database db, CatalogRepository catalog,
                              StorageSettings settings, Cadence cadence, Clock clock) {
        FilestoreSimulator simulator = "gke".equals(provider) ? null : FilestoreSimulator.start(clock, simOperation, 0, simulatorState);
        Map<String, FilestoreSharedVolumeProvider> clients = new ConcurrentHashMap<>();
        SharedVolumeProviders providers = account -> clients.computeIfAbsent(
                simulator != null ? "simulator" : account.credentialsFile() == null ? "default" : account.credentialsFile(),
                k -> simulator != null ? FilestoreSharedVolumeProvider.restWithoutCredentials(simulator.url(), clock)
                        : account.credentialsFile() == null ? FilestoreSharedVolumeProvider.google(clock)
                        : FilestoreSharedVolumeProvider.google(Path.of(account.credentialsFile()), clock));
        return new VolumeModule(simulator, clients, providers, db, catalog, settings, cadence, clock);
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
