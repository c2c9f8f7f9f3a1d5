package com.bettercompute.application.incluster;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.InClusterLeases;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.DemandWatch;
import com.bettercompute.application.port.MarketClusterClient.ObservedJob;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * One replica's share of the market inside its tenant clusters, one {@link #pass()} at a time (one thread).
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
 * <p><b>Per cluster</b>, as before: a cluster is taken into the market inside it — platform objects, demand
 * watch, nodes — only once its add-ons are ready; every {@code objectsEvery} (or when its max cluster size
 * changed) its add-ons and platform objects are kept; when its watch has synced, demand in, verdicts out,
 * nodes. Everything follows from saved state, so a pass after a crash or a hand-over catches up.
 */
public final class CarryMarketIntoClusters implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CarryMarketIntoClusters.class);

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

    /** A cluster ready for demand in, verdicts out and nodes this pass. */
    private record Ready(String clusterId, String site, ClusterConnection connection, List<ObservedJob> jobs) {
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
    private final Map<String, Watched> watched = new HashMap<>();
    /** By cluster: what its add-ons waited for at the last look, so a standing wait is logged once. */
    private final Map<String, String> waiting = new HashMap<>();
    private Set<String> held = new LinkedHashSet<>();
    private Instant renewedAt = Instant.MIN;
    private int reads;

    /**
     * @param owner        this replica's name among those sharing the clusters (unique per replica)
     * @param lease        how long a lease and a replica's word run without renewal: how long a dead replica's
     *                     clusters wait; longer than a pass between renewals (a third of it)
     * @param objectsEvery how often each cluster's add-ons and platform objects are kept
     * @param onChange     run by a watch that saw a change (asks for a pass now)
     */
    public CarryMarketIntoClusters(MarketRepository markets, InClusterLeases leases, ClusterConnections connections,
                                   MarketClusterClient clusters, Steps steps, Clock clock, String owner, Duration lease,
                                   Duration objectsEvery, Runnable onChange) {
        this.markets = markets;
        this.leases = leases;
        this.connections = connections;
        this.clusters = clusters;
        this.steps = steps;
        this.clock = clock;
        this.owner = owner;
        this.lease = lease;
        this.objectsEvery = objectsEvery;
        this.onChange = onChange;
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
                held.removeAll(giveBack);
                leases.release(giveBack, owner);
                LOG.info("in-cluster market: {} clusters given back to the other replicas ({} replicas now)",
                        giveBack.size(), replicas.size());
            }
            renew(mine);
        } catch (RuntimeException e) {
            stopAll();
            throw e;
        }

        List<Ready> ready = new ArrayList<>();
        List<SyncClusterDemand.Observed> observed = new ArrayList<>();
        for (String clusterId : List.copyOf(held)) {
            if (!stillHeld(clusterId)) {
                continue;
            }
            try {
                prepare(view, clusterId, enrolled.get(clusterId)).ifPresent(r -> {
                    ready.add(r);
                    observed.add(new SyncClusterDemand.Observed(r.clusterId(), r.site(), r.jobs()));
                });
            } catch (RuntimeException e) {
                LOG.warn("cluster {}: in-cluster market pass failed: {}", clusterId, e.getMessage());
            }
        }

        Set<String> changed = new LinkedHashSet<>();
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
        if (!changed.isEmpty()) {
            view = read();
        }
        for (Ready r : ready) {
            if (!stillHeld(r.clusterId())) {
                continue;
            }
            try {
                steps.verdicts().publish(view, r.clusterId(), r.connection(), r.jobs());
                steps.nodes().reconcile(view, r.clusterId());
            } catch (RuntimeException e) {
                LOG.warn("cluster {}: in-cluster market pass failed: {}", r.clusterId(), e.getMessage());
            }
        }
        return new Pass(replicas.size(), held, changed, reads);
    }

    private Market read() {
        reads++;
        return markets.load();
    }

    /** Takes or renews the leases of {@code wanted}; a cluster whose lease another replica holds is stopped. */
    private void renew(Set<String> wanted) {
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
    private boolean stillHeld(String clusterId) {
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

    /**
     * Add-ons, platform objects and the watch of one cluster; the cluster with its demand when its watch has
     * synced.
     */
    private Optional<Ready> prepare(Market view, String clusterId, long maxGpus) {
        Optional<Cluster> cluster = connections.cluster(clusterId);
        Optional<ClusterConnection> connection = cluster.isEmpty() ? Optional.empty() : connections.of(clusterId);
        if (connection.isEmpty()) {
            if (cluster.isEmpty()) {
                stopWatch(clusterId);
            }
            return Optional.empty();
        }
        Instant now = clock.instant();
        Watched w = watched.get(clusterId);
        if (w == null) {
            if (!addOnsReady(clusterId)) {
                return Optional.empty();
            }
            // The CRD and Kueue's objects before the watch: its ProvisioningRequest informer needs the API served.
            steps.objects().keep(view, clusterId);
            w = new Watched(clusters.watchDemand(connection.get(), onChange), now, maxGpus);
            watched.put(clusterId, w);
            LOG.info("cluster {}: platform objects kept and its demand watch started", clusterId);
        } else if (w.maxGpusKept != maxGpus || !now.isBefore(w.objectsKeptAt.plus(objectsEvery))) {
            // A new max cluster size reaches the ClusterQueue at the next pass, not the next resync.
            if (!now.isBefore(w.objectsKeptAt.plus(objectsEvery))) {
                // drift repaired, a new pinned version rolled out; the watch goes on while a controller restarts
                addOnsReady(clusterId);
            }
            steps.objects().keep(view, clusterId);
            w.objectsKeptAt = now;
            w.maxGpusKept = maxGpus;
        }
        if (!w.watch.synced()) {
            return Optional.empty();
        }
        return Optional.of(new Ready(clusterId, cluster.get().region(), connection.get(), w.watch.jobs()));
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

    private void stopAll() {
        List.copyOf(watched.keySet()).forEach(this::stopWatch);
        held = new LinkedHashSet<>();
        renewedAt = Instant.MIN;
    }

    /** The clusters whose demand this replica watches now. */
    public Set<String> watching() {
        return Set.copyOf(watched.keySet());
    }

    /** Closes every watch and gives back every lease, so the other replicas take the clusters at their next pass. */
    @Override
    public void close() {
        stopAll();
        try {
            leases.leave(owner);
        } catch (RuntimeException e) {
            LOG.warn("in-cluster market: the leases could not be given back; they run out instead: {}", e.getMessage());
        }
    }
}
