package com.bettercompute.bootstrap;

import com.bettercompute.adapters.k8s.Fabric8LoadBalancerClusterClient;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.MarketTickLock;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.loadbalancer.ReconcileLoadBalancers;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.LoadBalancerClusterClient;
import com.bettercompute.application.port.LoadBalancerClusterClient.ServiceWatch;
import com.bettercompute.application.port.LoadBalancerProvider;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerSettings;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Services of type LoadBalancer in every tenant cluster (docs/decisions/load-balancers.md), on one thread of one
 * replica at a time ({@link MarketTickLock} under its own key): one watch of Services and Nodes per reachable
 * cluster, the platform's Service webhook registered in it, and a pass of {@link ReconcileLoadBalancers} over it
 * every {@code every} and at once when a watch sees a change; the load balancers of a deleted cluster released.
 * Everything a pass does follows from saved state and what the watches show, so a crash at any point is caught up by
 * the next pass after a restart, on this replica or another.
 */
final class LoadBalancerModule implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LoadBalancerModule.class);
    /** How often the loop passes over the clusters when nothing wakes it (room freed elsewhere is seen then). */
    static final Duration EVERY = Duration.ofSeconds(5);
    /** How often each cluster's Service webhook is checked. */
    static final Duration WEBHOOK_EVERY = Duration.ofSeconds(60);
    static final long WATCH_RESYNC_MILLIS = 30_000;
    static final int MAX_CLUSTERS = 100_000;

    private final Database db;
    private final ClusterConnections connections;
    private final LoadBalancerClusterClient clusters;
    private final Fabric8LoadBalancerClusterClient fabric8;
    private final ReconcileLoadBalancers reconcile;
    private final AdmissionEndpoints admission;
    private final MarketTickLock lock;
    private final Clock clock;
    private final Semaphore wake = new Semaphore(0);
    private final Map<String, Watched> watched = new HashMap<>();
    private final Thread thread;
    private volatile boolean stopping;

    private static final class Watched {
        final ServiceWatch watch;
        java.time.Instant webhookKeptAt;

        Watched(ServiceWatch watch, java.time.Instant webhookKeptAt) {
            this.watch = watch;
            this.webhookKeptAt = webhookKeptAt;
        }
    }

    private LoadBalancerModule(Database db, ClusterConnections connections, Fabric8LoadBalancerClusterClient fabric8,
                               ReconcileLoadBalancers reconcile, AdmissionEndpoints admission, Clock clock) {
        this.db = db;
        this.connections = connections;
        this.fabric8 = fabric8;
        this.clusters = fabric8;
        this.reconcile = reconcile;
        this.admission = admission;
        this.lock = db.newLoadBalancerLock();
        this.clock = clock;
        this.thread = new Thread(this::run, "load-balancers");
        this.thread.setDaemon(true);
    }

    /**
     * Starts serving the tenant clusters' load balancers with the provider {@code provider} gives each account (none:
     * a pass over its clusters fails, and says so), their Service webhooks at {@code admission}'s; closed with the server.
     */
    static LoadBalancerModule start(DatabaseModule data, ProviderModule provider, LoadBalancerSettings settings, AdmissionModule admission,
                                    Metrics metrics, Clock clock, Closer closer) {
        Database db = data.db();
        CatalogRepository catalog = data.cache().catalog();
        ClusterConnections connections = new ClusterConnections(db.clusters(), catalog, provider.providers());
        Fabric8LoadBalancerClusterClient fabric8 = new Fabric8LoadBalancerClusterClient(ProviderModule.TENANT_CLUSTER_TIMEOUT_MILLIS,
                WATCH_RESYNC_MILLIS);
        LoadBalancerProvider.ForAccount forAccount = account -> provider.setup().loadBalancers(account).orElseThrow(() -> new ProviderException(
                ProviderException.Kind.UNAVAILABLE, "no Compute Engine API is configured for account " + account.id()));
        ReconcileLoadBalancers reconcile = new ReconcileLoadBalancers(db.transactions(), db.loadBalancers(), db.outbox(), connections,
                catalog, fabric8, forAccount, () -> settings, new ReconcileLoadBalancers.Listener() {
                    @Override
                    public void allocated(LoadBalancer lb) {
                        metrics.loadBalancer("allocated", null);
                    }

                    @Override
                    public void released(LoadBalancer lb) {
                        metrics.loadBalancer("released", null);
                    }

                    @Override
                    public void refused(LoadBalancer lb, RefusalReason reason) {
                        metrics.loadBalancer("refused", reason.wire());
                    }

                    @Override
                    public void failed(String step, ProviderException e) {
                        metrics.loadBalancer("failed", e.kind().name().toLowerCase(java.util.Locale.ROOT));
                    }
                }, clock);
        LoadBalancerModule module = new LoadBalancerModule(db, connections, fabric8, reconcile, admission.endpoints(), clock);
        module.thread.start();
        return closer.add("load-balancers", module);
    }

    void wake() {
        wake.release();
    }

    private void run() {
        while (!stopping) {
            try {
                pass();
            } catch (RuntimeException e) {
                LOG.error("load balancer pass failed; the next pass tries again", e);
            }
            try {
                wake.tryAcquire(EVERY.toMillis(), TimeUnit.MILLISECONDS);
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
                LOG.info("another replica serves the load balancers: this one's watches stopped");
            }
            return;
        }
        Set<String> live = new HashSet<>();
        for (Cluster c : db.clusters().list(new ClusterFilter(null, null, null, false), MAX_CLUSTERS)) {
            if (stopping) {
                return;
            }
            live.add(c.id());
            try {
                passOver(c.id());
            } catch (RuntimeException e) {
                LOG.warn("cluster {}: load balancer pass failed: {}", c.id(), e.getMessage());
            }
        }
        for (String gone : Set.copyOf(watched.keySet())) {
            if (!live.contains(gone) || connections.of(gone).isEmpty()) {
                watched.remove(gone).watch.close();
                LOG.info("cluster {}: its Service watch stopped (not reachable, or deleted)", gone);
            }
        }
        // the load balancers of clusters that are gone: only their provider side is left to release
        for (String clusterId : db.loadBalancers().clusters()) {
            if (!live.contains(clusterId)) {
                reconcile.pass(clusterId, null);
            }
        }
    }

    private void passOver(String clusterId) {
        java.util.Optional<ClusterConnection> connection = connections.of(clusterId);
        if (connection.isEmpty()) {
            return;
        }
        java.time.Instant now = clock.instant();
        Watched w = watched.get(clusterId);
        if (w == null) {
            keepWebhook(clusterId, connection.get());
            w = new Watched(clusters.watch(connection.get(), this::wake), now);
            watched.put(clusterId, w);
            LOG.info("cluster {}: Service webhook kept and its Service watch started", clusterId);
        } else if (!now.isBefore(w.webhookKeptAt.plus(WEBHOOK_EVERY))) {
            keepWebhook(clusterId, connection.get());
            w.webhookKeptAt = now;
        }
        reconcile.pass(clusterId, w.watch);
    }

    private void keepWebhook(String clusterId, ClusterConnection connection) {
        admission.webhooks(clusterId).ifPresent(webhooks -> clusters.ensureServiceWebhook(connection, webhooks));
    }

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
        fabric8.close();
    }

    /**
     * Who holds which address, read from the saved rows: served by every replica, whether or not it runs the
     * load balancers' loop.
     */
    static ListLoadBalancers list(DatabaseModule data) {
        return new ListLoadBalancers(data.db().loadBalancers(), data.db().clusters(), data.authorizer());
    }
}
