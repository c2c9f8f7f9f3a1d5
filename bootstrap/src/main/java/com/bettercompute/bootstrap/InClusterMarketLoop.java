package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.MarketTickLock;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.incluster.KeepClusterComponents;
import com.bettercompute.application.incluster.KeepPlatformObjects;
import com.bettercompute.application.incluster.PublishRequestStatus;
import com.bettercompute.application.incluster.ReconcileMarketNodes;
import com.bettercompute.application.incluster.SyncClusterDemand;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.DemandWatch;
import com.bettercompute.application.port.MarketClusterClient.ObservedJob;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.TenantCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The market inside its tenant clusters, on one thread: one demand watch per market-managed cluster
 * (started when the cluster is enrolled and reachable, stopped when it leaves the market or is deleted,
 * all started again at a server start), and per pass for each watched cluster: demand in
 * ({@link SyncClusterDemand}), verdicts out ({@link PublishRequestStatus}), nodes
 * ({@link ReconcileMarketNodes}), and every {@code objectsEvery} the market's add-ons
 * ({@link KeepClusterComponents}) and the platform's objects ({@link KeepPlatformObjects}). A cluster is taken
 * into the market inside it — objects, watch, nodes — only once its add-ons are ready. A pass runs every {@code every}, and at once after a watch saw a change or a
 * tick decided something. Everything a pass does follows from saved state, so a crash at any point is
 * caught up by the next pass after a restart.
 *
 * <p>One replica at a time carries the market out ({@link MarketTickLock}, its own key): a replica that does
 * not hold the lock watches nothing and passes over nothing, so two replicas never make a cluster's nodes or
 * write its statuses side by side; when the holder dies, another one's next pass takes the lock and starts
 * the watches again from saved state.
 */
final class InClusterMarketLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InClusterMarketLoop.class);

    private final MarketRepository markets;
    private final ClusterConnections connections;
    private final MarketClusterClient clusters;
    private final KeepClusterComponents components;
    private final KeepPlatformObjects objects;
    private final SyncClusterDemand demand;
    private final PublishRequestStatus verdicts;
    private final ReconcileMarketNodes nodes;
    private final Clock clock;
    private final Duration every;
    private final Duration objectsEvery;
    private final MarketTickLock lock;
    private final Semaphore wake = new Semaphore(0);
    private final Map<String, Watched> watched = new HashMap<>();
    /** By cluster: what its add-ons waited for at the last look, so a standing wait is logged once. */
    private final Map<String, String> waiting = new HashMap<>();
    private final Thread thread;
    private volatile boolean stopping;

    private static final class Watched {
        final DemandWatch watch;
        Instant objectsKeptAt;
        long maxGpusKept;

        Watched(DemandWatch watch, Instant objectsKeptAt, long maxGpusKept) {
            this.watch = watch;
            this.objectsKeptAt = objectsKeptAt;
            this.maxGpusKept = maxGpusKept;
        }
    }

    InClusterMarketLoop(MarketRepository markets, ClusterConnections connections, MarketClusterClient clusters,
                        KeepClusterComponents components, KeepPlatformObjects objects, SyncClusterDemand demand, PublishRequestStatus verdicts,
                        ReconcileMarketNodes nodes, Clock clock, Duration every, Duration objectsEvery,
                        MarketTickLock lock) {
        this.markets = markets;
        this.connections = connections;
        this.clusters = clusters;
        this.components = components;
        this.objects = objects;
        this.demand = demand;
        this.verdicts = verdicts;
        this.nodes = nodes;
        this.clock = clock;
        this.every = every;
        this.objectsEvery = objectsEvery;
        this.lock = lock;
        this.thread = new Thread(this::run, "market-in-cluster");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Asks for a pass now (a watch saw a change, a tick decided something). */
    void wake() {
        wake.release();
    }

    private void run() {
        while (!stopping) {
            try {
                pass();
            } catch (RuntimeException e) {
                LOG.error("in-cluster market pass failed; the next pass tries again", e);
            }
            try {
                wake.tryAcquire(every.toMillis(), TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    void pass() {
        if (!lock.tryHold()) {
            if (!watched.isEmpty()) {
                watched.values().forEach(w -> w.watch.close());
                watched.clear();
                LOG.info("another replica carries the market into the tenant clusters: this one's watches stopped");
            }
            return;
        }
        Map<String, Long> enrolled = new HashMap<>();
        for (TenantCluster c : markets.load().clusters()) {
            enrolled.put(c.id(), c.maxGpus());
        }
        for (String gone : Set.copyOf(watched.keySet())) {
            if (!enrolled.containsKey(gone) || connections.cluster(gone).isEmpty()) {
                watched.remove(gone).watch.close();
                LOG.info("cluster {}: its demand watch stopped (the cluster left the market or was deleted)", gone);
            }
        }
        for (Map.Entry<String, Long> cluster : enrolled.entrySet()) {
            String clusterId = cluster.getKey();
            if (stopping) {
                return;
            }
            try {
                passOver(clusterId, cluster.getValue());
            } catch (RuntimeException e) {
                LOG.warn("cluster {}: in-cluster market pass failed: {}", clusterId, e.getMessage());
            }
        }
    }

    private void passOver(String clusterId, long maxGpus) {
        Optional<Cluster> cluster = connections.cluster(clusterId);
        Optional<ClusterConnection> connection = cluster.isEmpty() ? Optional.empty() : connections.of(clusterId);
        if (connection.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        Watched w = watched.get(clusterId);
        if (w == null) {
            if (!addOnsReady(clusterId)) {
                return;
            }
            // The CRD and Kueue's objects before the watch: its ProvisioningRequest informer needs the API served.
            objects.keep(clusterId);
            w = new Watched(clusters.watchDemand(connection.get(), this::wake), now, maxGpus);
            watched.put(clusterId, w);
            LOG.info("cluster {}: platform objects kept and its demand watch started", clusterId);
        } else if (w.maxGpusKept != maxGpus || !now.isBefore(w.objectsKeptAt.plus(objectsEvery))) {
            // A new max cluster size reaches the ClusterQueue at the next pass, not the next resync.
            if (!now.isBefore(w.objectsKeptAt.plus(objectsEvery))) {
                // drift repaired, a new pinned version rolled out; the watch goes on while a controller restarts
                addOnsReady(clusterId);
            }
            objects.keep(clusterId);
            w.objectsKeptAt = now;
            w.maxGpusKept = maxGpus;
        }
        if (!w.watch.synced()) {
            return;
        }
        List<ObservedJob> jobs = w.watch.jobs();
        var changed = demand.sync(clusterId, cluster.get().region(), jobs);
        if (changed.changed()) {
            LOG.info("cluster {}: demand filed {} ended {} withdrawn {} limits {} priorities {}", clusterId,
                    changed.filed(), changed.ended(), changed.withdrawn(), changed.limitsChanged(), changed.prioritiesChanged());
        }
        verdicts.publish(clusterId, connection.get(), jobs);
        nodes.reconcile(clusterId);
    }

    /**
     * Installs or repairs the cluster's add-ons and says whether all are ready; what they wait for is logged when
     * it changes.
     */
    private boolean addOnsReady(String clusterId) {
        KeepClusterComponents.Outcome outcome = components.keep(clusterId);
        String now = outcome.ready() ? "" : outcome.waitingFor();
        String before = waiting.put(clusterId, now);
        if (!now.equals(before)) {
            if (now.isEmpty()) {
                LOG.info("cluster {}: the market's add-ons are ready: {}", clusterId, outcome.components().stream()
                        .map(c -> c.name() + " " + c.version()).toList());
            } else {
                LOG.info("cluster {}: waiting for the market's add-ons: {}", clusterId, now);
            }
        }
        return outcome.ready();
    }

    /** Stops the loop after its pass under way and closes every watch. */
    @Override
    public void close() {
        stopping = true;
        wake.release();
        try {
            thread.join(Duration.ofSeconds(15).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watched.values().forEach(w -> w.watch.close());
        watched.clear();
        lock.close();
    }
}
