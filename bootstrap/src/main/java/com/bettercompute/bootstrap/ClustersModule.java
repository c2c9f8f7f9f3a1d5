package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.ApiUseCases;
import com.bettercompute.adapters.http.NodePoolUseCases;
import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.cluster.DeleteCluster;
import com.bettercompute.application.cluster.GetCluster;
import com.bettercompute.application.cluster.IssueCredentials;
import com.bettercompute.application.cluster.ListClusters;
import com.bettercompute.application.cluster.ListVersions;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.cluster.UpdateCluster;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.market.EnrolReadyCluster;
import com.bettercompute.application.market.MarketCatalog;
import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.GetNodePool;
import com.bettercompute.application.nodepool.ListNodePools;
import com.bettercompute.application.nodepool.UpdateNodePool;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.application.usage.ReadUsage;
import com.bettercompute.adapters.persistence.Database;

import java.time.Clock;
import java.time.Duration;
import java.util.Locale;

/**
 * Kubernetes clusters and their node pools: the use cases of their routes, and the reconciler that makes them so at
 * the provider with their shared volumes (only where {@code --reconcile} is on; a ready cluster of a market pool is
 * enrolled in the market).
 *
 * @param useCases   the clusters' routes
 * @param nodePools  the node pools' routes
 * @param reconciler null where the reconcilers do not run
 */
record ClustersModule(ApiUseCases useCases, NodePoolUseCases nodePools, ReconcileWorker reconciler) {
    /** How long a replica holds a cluster while it reconciles it; a crashed replica's lease expires after this. */
    static final Duration LEASE = Duration.ofSeconds(60);
    /** How long a stop waits for the reconcile passes in flight: inside the 30 s a stop may take. */
    static final Duration RECONCILE_DRAIN = Duration.ofSeconds(20);
    static final Duration POLL = Duration.ofMillis(500);
    static final int RECONCILE_THREADS = 4;

    /** How often the reconciler looks at a cluster: converging ones, and ready or failed ones. */
    static Cadence cadence(ServerConfig config) {
        return Cadence.of(Duration.ofSeconds(config.reconcileConvergingSeconds()), Duration.ofSeconds(config.reconcileSettledSeconds()));
    }

    static ClustersModule start(ServerConfig config, DatabaseModule data, ProviderModule provider, MarketModule market,
                                MarketCatalog marketCatalog, VolumeModule volumes, Metrics metrics, Clock clock, Closer closer) {
        Database db = data.db();
        CatalogCache cache = data.cache();
        Authorizer authorizer = data.authorizer();
        ReconcileWorker reconciler = null;
        if (config.reconcile()) {
            ReconcileCluster reconcile = new ReconcileCluster(db.transactions(), db.clusters(), cache.catalog(), cache.access(),
                    db.outbox(), db.usage(), provider.providers(), cadence(config), clock,
                    new EnrolReadyCluster(market.transactions(), market.markets(), db.clusters(), marketCatalog, clock),
                    volumes.clusterVolumes());
            reconciler = closer.add("reconciler", new ReconcileWorker(db.clusters(), reconcile, clock, config.replicaId(), LEASE,
                    POLL, RECONCILE_THREADS, RECONCILE_DRAIN,
                    (pass, took) -> metrics.reconcilePass(pass.outcome().name().toLowerCase(Locale.ROOT), took.toNanos())));
        }
        IssueCredentials issueCredentials = new IssueCredentials(db.transactions(), db.clusters(), cache.catalog(), db.outbox(),
                authorizer, provider.providers(), provider.tenantClusters(), config.credentialTtlSeconds(), clock);
        ApiUseCases useCases = new ApiUseCases(
                new Authenticate(cache.access()),
                new CreateCluster(db.clusters(), cache.catalog(), authorizer, clock),
                new ListClusters(db.clusters(), authorizer),
                new GetCluster(db.clusters(), authorizer),
                new UpdateCluster(db.transactions(), db.clusters(), authorizer, clock),
                new DeleteCluster(db.transactions(), db.clusters(), db.outbox(), authorizer, clock, db.volumes()),
                new ListVersions(cache.catalog(), authorizer, provider.providers()),
                new ReadEvents(db.outbox(), new ReadableClusters(db.clusters(), authorizer)),
                new ReadUsage(db.usage(), new ReadableClusters(db.clusters(), authorizer), db.storageLedger()),
                issueCredentials);
        NodePoolUseCases nodePools = new NodePoolUseCases(
                new CreateNodePool(db.transactions(), db.clusters(), cache.catalog(), db.outbox(), authorizer, clock),
                new ListNodePools(db.clusters(), authorizer),
                new GetNodePool(db.clusters(), authorizer),
                new UpdateNodePool(db.transactions(), db.clusters(), authorizer, clock),
                new DeleteNodePool(db.transactions(), db.clusters(), db.outbox(), authorizer, clock));
        return new ClustersModule(useCases, nodePools, reconciler);
    }

    /** Reconcile passes this replica has run (0 without a reconciler). */
    long reconcilePasses() {
        return reconciler == null ? 0 : reconciler.passes();
    }
}
