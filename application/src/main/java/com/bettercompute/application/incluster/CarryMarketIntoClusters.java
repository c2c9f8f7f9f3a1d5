package com.bettercompute.application.incluster;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.InClusterLeases;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.DemandWatch;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.TenantCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * One replica's share of the market inside its tenant clusters, one {@link #pass()} at a time, each pass working
 * its clusters on a bounded pool of threads.
 *
 * <p><b>Which clusters.</b> Each replica that carries the market out says so at every pass
 * ({@link InClusterLeases#replicas}); each enrolled cluster belongs to the replica that scores highest for it
 * ({@link #shardOwner}: rendezvous hashing, so a replica that joins or leaves moves only its own share). A
 * replica works a cluster only while it holds the cluster's lease, taken or renewed at every pass and again
 * whenever a third of the lease has gone by within a long pass; a cluster it no longer owns is given back at
 * once (its watch closed first), and the owner takes it at its next pass. A replica that dies stops renewing:
 * its leases run out and the others, which no longer count it, take its clusters.
 *
 * <p><b>One read of the market a pass.</b> The pass reads the market once; every cluster's steps read that
 * view. Demand found changed in any cluster is written in one transaction ({@link SyncClusterDemand}), after
 * which the view is read again once, so the verdicts and nodes that follow see the new requests. So a pass
 * reads the market at most twice outside its one write, whatever the number of clusters.
 *
 * <p><b>Clusters at once.</b> A pass goes over its clusters twice, each time on at most {@code concurrency}
 * threads: first it reads each synced watch's demand from the watch's caches (no call into a cluster, so no
 * cluster holds up the one demand write), then, after the write, it works each cluster: add-ons, platform objects
 * and watch, verdicts, nodes. A cluster that is slow holds one thread, not the others; one that fails is logged
 * and tried again at the next pass. A pass returns once every cluster of its share was worked (each once), so a
 * pass lasts as long as its slowest cluster, whose calls the client's timeout bounds.
 *
 * <p><b>Per cluster</b>: a cluster is taken into the market inside it — platform objects, demand watch, nodes —
 * only once its add-ons are ready; every {@code objectsEvery}, at a phase of its own (and when its max cluster size
 * changed), its platform objects are kept, and its add-ons every {@link #UPKEEPS_PER_ADD_ON_LOOK}th time; when its
 * watch has synced, demand in, verdicts out, nodes. Everything follows from saved state, so a pass after a crash or a hand-over catches up.
 */
public final class CarryMarketIntoClusters implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CarryMarketIntoClusters.class);
    /** How many clusters a pass works at once unless configured: calls into clusters mostly wait on the network. */
    public static final int DEFAULT_CONCURRENCY = 16;
    /** How long {@link #close()} waits for a call into a cluster the pool interrupted. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    /** The per-cluster use cases a pass runs. */
    public record Steps(KeepClusterComponents components, KeepPlatformObjects objects, SyncClusterDemand demand,
                        PublishRequestStatus verdicts, ReconcileMarketNodes nodes) {
    }

    /**
     * What a pass did: how many replicas share the clusters, the clusters this one held (and so worked), those
     * whose demand it wrote, and how many times it read the market.
     */
    public record Pass(int replicas, Set<String> held, Set<String> demandChanged, int marketReads) {
        public Pass {
            held = Set.copyOf(held);
            demandChanged = Set.copyOf(demandChanged);
        }
    }

    /**
     * How many of a cluster's upkeeps go by between two looks at its add-ons. Each look reads every object of the
     * add-ons' manifests (Kueue's CRDs among them) from the cluster, many times the work of the rest of an upkeep; a
     * drifted add-on waits some minutes for repair, and a new pinned version reaches clusters as they are taken.
     */
    static final int UPKEEPS_PER_ADD_ON_LOOK = 10;

    private static final class Watched {
        final DemandWatch watch;
        Instant objectsKeptAt;
        long maxGpusKept;
        /** Upkeeps until the next look at the add-ons. */
        int upkeepsToAddOnLook;

        Watched(DemandWatch watch, Instant objectsKeptAt, long maxGpusKept, int upkeepsToAddOnLook) {
            this.watch = watch;
            this.objectsKeptAt = objectsKeptAt;
            this.maxGpusKept = maxGpusKept;
            this.upkeepsToAddOnLook = upkeepsToAddOnLook;
        }
    }

    private final MarketRepository markets;
    private final InClusterLeases leases;
    private final ClusterConnections connections;
    private final MarketClusterClient clusters;
    private final Steps steps;
    private final Clock clock;
    private final String owner;
    private final Duration lease;
    private final Duration objectsEvery;
    private final Runnable onChange;
    private final int concurrency;
    private final ExecutorService pool;
    /** By cluster; each entry's fields are touched only by the thread working its cluster in a pass. */
    private final Map<String, Watched> watched = new ConcurrentHashMap<>();
    /** By cluster: what its add-ons waited for at the last look, so a standing wait is logged once. */
    private final Map<String, String> waiting = new ConcurrentHashMap<>();
    /** Replaced whole, never changed in place, under this object's lock; read by the pool's threads. */
    private volatile Set<String> held = new LinkedHashSet<>();
    private Instant renewedAt = Instant.MIN;
    private int reads;

    /**
     * @param owner        this replica's name among those sharing the clusters (unique per replica)
     * @param lease        how long a lease and a replica's word run without renewal: how long a dead replica's
     *                     clusters wait; longer than a pass between renewals (a third of it)
     * @param objectsEvery how often each cluster's add-ons and platform objects are kept
     * @param concurrency  how many clusters a pass works at once, each on a thread of a pool this object owns
     *                     (closed with it)
     * @param onChange     run by a watch that saw a change (asks for a pass now)
     */
    public CarryMarketIntoClusters(MarketRepository markets, InClusterLeases leases, ClusterConnections connections,
                                   MarketClusterClient clusters, Steps steps, Clock clock, String owner, Duration lease,
                                   Duration objectsEvery, int concurrency, Runnable onChange) {
        this(markets, leases, connections, clusters, steps, clock, owner, lease, objectsEvery, concurrency,
                Executors.newFixedThreadPool(positive(concurrency), new WorkerThreads(owner)), onChange);
    }

    /** With the pool the clusters are worked on ({@code concurrency} of its threads at most); closed with this object. */
    CarryMarketIntoClusters(MarketRepository markets, InClusterLeases leases, ClusterConnections connections,
                            MarketClusterClient clusters, Steps steps, Clock clock, String owner, Duration lease,
                            Duration objectsEvery, int concurrency, ExecutorService pool, Runnable onChange) {
        this.markets = markets;
        this.leases = leases;
        this.connections = connections;
        this.clusters = clusters;
        this.steps = steps;
        this.clock = clock;
        this.owner = owner;
        this.lease = lease;
        this.objectsEvery = objectsEvery;
        this.concurrency = positive(concurrency);
        this.pool = pool;
        this.onChange = onChange;
    }

    private static int positive(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, not " + concurrency);
        }
        return concurrency;
    }

    /** The pool's threads: named for the replica, daemons so a pool left open never keeps the JVM up. */
    private static final class WorkerThreads implements ThreadFactory {
        private final String owner;
        private final AtomicInteger count = new AtomicInteger();

        WorkerThreads(String owner) {
            this.owner = owner;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "market-in-cluster-" + owner + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }

    /**
     * The replica, of {@code replicas}, that carries the market into {@code clusterId}: the highest score of
     * the cluster and the replica together, so each replica's share moves only when it joins or leaves.
     */
    static String shardOwner(String clusterId, List<String> replicas) {
        String best = null;
        String bestScore = null;
        for (String replica : replicas) {
            String score = Ids.sha256Hex(clusterId + "\n" + replica);
            if (bestScore == null || score.compareTo(bestScore) > 0) {
                best = replica;
                bestScore = score;
            }
        }
        return best;
    }

    /**
     * One pass over this replica's share of the clusters.
     *
     * @throws RuntimeException when the market or the leases could not be read: this replica then works no
     *         cluster (its watches are closed) until a pass succeeds again
     */
    public Pass pass() {
        reads = 0;
        Market view = read();
        TreeMap<String, Long> enrolled = new TreeMap<>();
        for (TenantCluster c : view.clusters()) {
            enrolled.put(c.id(), c.maxGpus());
        }
        List<String> replicas;
        try {
            Instant now = clock.instant();
            replicas = leases.replicas(owner, now, now.plus(lease));
            Set<String> mine = new LinkedHashSet<>();
            for (String id : enrolled.keySet()) {
                if (owner.equals(shardOwner(id, replicas))) {
                    mine.add(id);
                }
            }
            Set<String> giveBack = new LinkedHashSet<>(held);
            giveBack.removeAll(mine);
            if (!giveBack.isEmpty()) {
                giveBack.forEach(this::stopWatch);
                Set<String> kept = new LinkedHashSet<>(held);
                kept.removeAll(giveBack);
                held = kept;
                leases.release(giveBack, owner);
                LOG.info("in-cluster market: {} clusters given back to the other replicas ({} replicas now)",
                        giveBack.size(), replicas.size());
            }
            renew(mine);
        } catch (RuntimeException e) {
            stopAll();
            throw e;
        }

        Set<String> changed = new LinkedHashSet<>();
        try {
            // What each synced watch shows, read from its caches: no call into any cluster, so no cluster holds the write.
            List<String> share = List.copyOf(held);
            SyncClusterDemand.Observed[] seen = new SyncClusterDemand.Observed[share.size()];
            each(share, i -> seen[i] = observe(share.get(i)));
            List<SyncClusterDemand.Observed> observed = new ArrayList<>();
            Map<String, SyncClusterDemand.Observed> byCluster = new HashMap<>();
            for (SyncClusterDemand.Observed o : seen) {
                if (o != null) {
                    observed.add(o);
                    byCluster.put(o.clusterId(), o);
                }
            }
            if (!observed.isEmpty()) {
                try {
                    steps.demand().sync(view, observed).forEach((clusterId, outcome) -> {
                        if (outcome.changed()) {
                            changed.add(clusterId);
                            LOG.info("cluster {}: demand filed {} ended {} withdrawn {} limits {} priorities {}", clusterId,
                                    outcome.filed(), outcome.ended(), outcome.withdrawn(), outcome.limitsChanged(),
                                    outcome.prioritiesChanged());
                        }
                    });
                } catch (RuntimeException e) {
                    LOG.warn("in-cluster market: demand could not be written; the next pass tries again: {}", e.getMessage());
                }
            }
            Market after = changed.isEmpty() ? view : read();
            // Everything that calls into a cluster, each cluster on its own: a slow or failing one holds only itself.
            each(share, i -> work(after, share.get(i), enrolled.get(share.get(i)), byCluster.get(share.get(i))));
        } finally {
            // A watch a worker opened while its cluster's lease was lost, or after a failed renewal stopped all.
            for (String id : List.copyOf(watched.keySet())) {
                if (!held.contains(id)) {
                    stopWatch(id);
                }
            }
        }
        return new Pass(replicas.size(), held, changed, reads);
    }

    /**
     * Runs {@code step} for each index of {@code share} still held, on at most {@link #concurrency} of the pool's
     * threads at once (each pulling the next cluster when done with one), and returns when every one is done. A
     * cluster's failure is logged and stops only that cluster; a failed renewal of the leases stops the pass.
     */
    private void each(List<String> share, IntConsumer step) {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<RuntimeException> leasesFailed = new AtomicReference<>();
        Runnable worker = () -> {
            for (int i = next.getAndIncrement(); i < share.size() && leasesFailed.get() == null; i = next.getAndIncrement()) {
                String clusterId = share.get(i);
                try {
                    if (!stillHeld(clusterId)) {
                        continue;
                    }
                } catch (RuntimeException e) {
                    leasesFailed.compareAndSet(null, e);
                    return;
                }
                try {
                    step.accept(i);
                } catch (RuntimeException e) {
                    LOG.warn("cluster {}: in-cluster market pass failed: {}", clusterId, e.getMessage());
                }
            }
        };
        int workers = Math.min(concurrency, share.size());
        CompletableFuture<?>[] done = new CompletableFuture<?>[workers];
        for (int w = 0; w < workers; w++) {
            done[w] = CompletableFuture.runAsync(worker, pool);
        }
        CompletableFuture.allOf(done).join();
        if (leasesFailed.get() != null) {
            throw leasesFailed.get();
        }
    }

    private Market read() {
        reads++;
        return markets.load();
    }

    /** Takes or renews the leases of {@code wanted}; a cluster whose lease another replica holds is stopped. */
    private synchronized void renew(Set<String> wanted) {
        Instant now = clock.instant();
        Set<String> taken = leases.claim(wanted, owner, now, now.plus(lease));
        renewedAt = now;
        for (String lost : List.copyOf(held)) {
            if (!taken.contains(lost)) {
                stopWatch(lost);
                LOG.warn("cluster {}: its in-cluster lease is held by another replica; this one stops working it", lost);
            }
        }
        held = new LinkedHashSet<>(taken);
    }

    /** Whether this replica still holds the cluster, renewing every lease first when a third of one has gone by. */
    private synchronized boolean stillHeld(String clusterId) {
        if (!clock.instant().isBefore(renewedAt.plus(lease.dividedBy(3)))) {
            try {
                renew(Set.copyOf(held));
            } catch (RuntimeException e) {
                stopAll();
                throw e;
            }
        }
        return held.contains(clusterId);
    }

    /** The cluster's demand as its watch shows it, when the watch has synced; a cluster gone has its watch stopped. */
    private SyncClusterDemand.Observed observe(String clusterId) {
        Optional<Cluster> cluster = connections.cluster(clusterId);
        if (cluster.isEmpty()) {
            stopWatch(clusterId);
            return null;
        }
        Watched w = watched.get(clusterId);
        if (w == null || !w.watch.synced()) {
            return null;
        }
        return new SyncClusterDemand.Observed(clusterId, cluster.get().region(), w.watch.jobs());
    }

    /**
     * Add-ons, platform objects and the watch of one cluster; then, for a cluster whose demand was read this pass
     * ({@code observed}), its verdicts and its nodes.
     */
    private void work(Market view, String clusterId, Long maxGpus, SyncClusterDemand.Observed observed) {
        Optional<Cluster> cluster = connections.cluster(clusterId);
        Optional<ClusterConnection> connection = cluster.isEmpty() ? Optional.empty() : connections.of(clusterId);
        if (connection.isEmpty() || maxGpus == null) {
            return;
        }
        Instant now = clock.instant();
        Watched w = watched.get(clusterId);
        if (w == null) {
            if (!addOnsReady(clusterId)) {
                return;
            }
            // The CRD and Kueue's objects before the watch: its ProvisioningRequest informer needs the API served.
            steps.objects().keep(view, clusterId);
            int phase = Math.floorMod(Ids.sha256Hex(clusterId).hashCode(), UPKEEPS_PER_ADD_ON_LOOK);
            watched.put(clusterId, new Watched(clusters.watchDemand(connection.get(), onChange), now.minus(upkeepPhase(clusterId)),
                    maxGpus, phase));
            LOG.info("cluster {}: platform objects kept and its demand watch started", clusterId);
            return;
        }
        boolean upkeep = !now.isBefore(w.objectsKeptAt.plus(objectsEvery));
        if (w.maxGpusKept != maxGpus || upkeep) {
            // A new max cluster size reaches the ClusterQueue at this pass, not the next resync.
            if (upkeep && --w.upkeepsToAddOnLook <= 0) {
                // drift repaired, a new pinned version rolled out; the watch goes on while a controller restarts
                addOnsReady(clusterId);
                w.upkeepsToAddOnLook = UPKEEPS_PER_ADD_ON_LOOK;
            }
            steps.objects().keep(view, clusterId);
            w.objectsKeptAt = now;
            w.maxGpusKept = maxGpus;
        }
        if (observed == null) {
            return;
        }
        // The jobs the demand write read, so a verdict never runs ahead of what the market was told.
        steps.verdicts().publish(view, clusterId, connection.get(), observed.jobs());
        // the provider's view of its pools at each upkeep, else only when the market has a node there
        steps.nodes().reconcile(view, cluster.get(), connection.get(), upkeep);
    }

    /**
     * How far into its first {@code objectsEvery} a cluster's upkeep falls, fixed by its id: clusters taken in one
     * pass (a replica's start, a hand-over) would otherwise keep their upkeep in one pass every {@code objectsEvery}
     * for as long as they are held, and that pass — every cluster's add-ons, objects and provider read at once — would
     * hold back the verdicts that wait on it. Spread, each pass keeps about its share.
     */
    private Duration upkeepPhase(String clusterId) {
        long millis = objectsEvery.toMillis();
        return millis <= 0 ? Duration.ZERO : Duration.ofMillis(Math.floorMod(Ids.sha256Hex(clusterId).hashCode(), millis));
    }

    /**
     * Installs or repairs the cluster's add-ons and says whether all are ready; what they wait for is logged when
     * it changes.
     */
    private boolean addOnsReady(String clusterId) {
        KeepClusterComponents.Outcome outcome = steps.components().keep(clusterId);
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

    private void stopWatch(String clusterId) {
        Watched w = watched.remove(clusterId);
        waiting.remove(clusterId);
        if (w != null) {
            w.watch.close();
            LOG.info("cluster {}: its demand watch stopped", clusterId);
        }
    }

    private synchronized void stopAll() {
        List.copyOf(watched.keySet()).forEach(this::stopWatch);
        held = new LinkedHashSet<>();
        renewedAt = Instant.MIN;
    }

    /** The clusters whose demand this replica watches now. */
    public Set<String> watching() {
        return Set.copyOf(watched.keySet());
    }

    /**
     * Stops the pool (a pass must not be under way: its loop ends first), closes every watch and gives back every
     * lease, so the other replicas take the clusters at their next pass.
     */
    @Override
    public void close() {
        pool.shutdownNow();
        try {
            if (!pool.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("in-cluster market: a cluster's call still runs after {}; its watches are closed anyway", CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopAll();
        try {
            leases.leave(owner);
        } catch (RuntimeException e) {
            LOG.warn("in-cluster market: the leases could not be given back; they run out instead: {}", e.getMessage());
        }
    }
}
