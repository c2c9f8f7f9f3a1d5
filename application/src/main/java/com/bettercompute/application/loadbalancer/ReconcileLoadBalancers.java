package com.bettercompute.application.loadbalancer;

import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.LoadBalancerClusterClient;
import com.bettercompute.application.port.LoadBalancerClusterClient.ServiceWatch;
import com.bettercompute.application.port.LoadBalancerProvider;
import com.bettercompute.application.port.LoadBalancerRepository;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.loadbalancer.AllocationPolicy;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerEvent;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.LoadBalancerSettings;
import com.bettercompute.domain.loadbalancer.LoadBalancerState;
import com.bettercompute.domain.loadbalancer.LoadBalancerSteps;
import com.bettercompute.domain.loadbalancer.LoadBalancerSteps.Step;
import com.bettercompute.domain.loadbalancer.Refusal;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import com.bettercompute.domain.loadbalancer.ServicePort;
import com.bettercompute.domain.loadbalancer.ServingPolicy;
import com.bettercompute.domain.loadbalancer.Worker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One pass of the load balancers of one tenant cluster: for each of its Services of type LoadBalancer (and each
 * row the platform keeps for it), {@link LoadBalancerSteps#next} says what to do, and the pass does it and asks
 * again until it is done — releases first, so room freed in a pass serves a Service left pending in the same
 * pass, then the Services that want one, the oldest first. Every step's write is saved before the next step's
 * call: the row before the address is reserved (in the transaction that checks the cluster's cap and the
 * region's pool), the releasing state before anything is taken down, the row's removal after the address is
 * released. A pass killed at any point leaves a row (or none) that the next pass reads as it is, and the
 * provider-side name, derived from the cluster and the Service's uid, makes every provider call adopt what an
 * earlier one made.
 *
 * <p>No threads and no sleeping here: the loop in bootstrap owns the watches, the timing and the lock that
 * keeps two replicas from passing over the same cluster.
 */
public final class ReconcileLoadBalancers {
    private static final Logger LOG = LoggerFactory.getLogger(ReconcileLoadBalancers.class);
    /** Steps for one Service in one pass; a Service goes from new to served in eight. */
    static final int MAX_STEPS = 16;
    static final String NORMAL = "Normal";
    static final String WARNING = "Warning";

    /** What the pass did, told for metrics. */
    public interface Listener {
        Listener NONE = new Listener() { };

        default void allocated(LoadBalancer lb) { }

        default void released(LoadBalancer lb) { }

        default void refused(LoadBalancer lb, RefusalReason reason) { }

        default void failed(String step, ProviderException e) { }
    }

    private final Transactions tx;
    private final LoadBalancerRepository rows;
    private final EventOutbox outbox;
    private final ClusterConnections connections;
    private final CatalogRepository catalog;
    private final LoadBalancerClusterClient clusters;
    private final LoadBalancerProvider.ForAccount providers;
    private final Supplier<LoadBalancerSettings> settings;
    private final Listener listener;
    private final Clock clock;

    public ReconcileLoadBalancers(Transactions tx, LoadBalancerRepository rows, EventOutbox outbox, ClusterConnections connections,
                                  CatalogRepository catalog, LoadBalancerClusterClient clusters,
                                  LoadBalancerProvider.ForAccount providers, Supplier<LoadBalancerSettings> settings,
                                  Listener listener, Clock clock) {
        this.tx = tx;
        this.rows = rows;
        this.outbox = outbox;
        this.connections = connections;
        this.catalog = catalog;
        this.clusters = clusters;
        this.providers = providers;
        this.settings = settings;
        this.listener = listener;
        this.clock = clock;
    }

    /** How a pass over a cluster ended. */
    public record Pass(int steps, int failures) {
    }

    /**
     * A pass over a live cluster whose Services {@code watch} shows; nothing until the watch has synced (a Service
     * missing from an unsynced cache is not gone). A step that fails is logged, and the Service is taken up again
     * by the next pass.
     */
    public Pass pass(String clusterId, ServiceWatch watch) {
        Optional<Cluster> cluster = connections.cluster(clusterId);
        Optional<ClusterConnection> connection = cluster.isEmpty() ? Optional.empty() : connections.of(clusterId);
        if (cluster.isEmpty()) {
            return releaseAll(clusterId);
        }
        if (connection.isEmpty() || watch == null || !watch.synced()) {
            return new Pass(0, 0);
        }
        Optional<ProviderAccount> account = catalog.account(cluster.get().providerAccountId());
        if (account.isEmpty()) {
            return new Pass(0, 0);
        }
        Target target = new Target(cluster.get(), account.get(), connection.get());
        List<Worker> workers = watch.workers();
        Map<String, LoadBalancerService> services = new LinkedHashMap<>();
        for (LoadBalancerService s : watch.services()) {
            services.put(s.uid(), s);
        }
        Map<String, LoadBalancer> held = new LinkedHashMap<>();
        for (LoadBalancer r : rows.ofCluster(clusterId)) {
            held.put(r.serviceUid(), r);
        }
        List<String> uids = new ArrayList<>();
        // releases first (rows whose Service no longer wants one), then the rows oldest first, then new Services
        held.keySet().stream().filter(u -> services.get(u) == null || !services.get(u).wanted()).forEach(uids::add);
        held.keySet().stream().filter(u -> !uids.contains(u)).forEach(uids::add);
        services.keySet().stream().filter(u -> !uids.contains(u)).forEach(uids::add);
        int steps = 0;
        int failures = 0;
        for (String uid : uids) {
            try {
                steps += run(target, held.get(uid), services.get(uid), workers);
            } catch (ProviderException e) {
                failures++;
                LOG.warn("cluster {}: load balancer of Service uid {}: {} ({})", clusterId, uid, e.getMessage(), e.kind());
                listener.failed("service", e);
            }
        }
        return new Pass(steps, failures);
    }

    /**
     * Releases every load balancer of a cluster that is gone (deleted, or no longer known): its Services went with it,
     * so only the provider side and the rows are left.
     */
    public Pass releaseAll(String clusterId) {
        int steps = 0;
        int failures = 0;
        for (LoadBalancer row : rows.ofCluster(clusterId)) {
            Optional<ProviderAccount> account = accountOf(row);
            try {
                steps += run(new Target(null, account.orElse(null), null), row, null, List.of());
            } catch (ProviderException e) {
                failures++;
                LOG.warn("cluster {} (gone): releasing {} failed: {} ({})", clusterId, row.providerName(), e.getMessage(), e.kind());
                listener.failed("release", e);
            }
        }
        return new Pass(steps, failures);
    }

    private Optional<ProviderAccount> accountOf(LoadBalancer row) {
        return connections.clusterEvenDeleted(row.clusterId()).flatMap(c -> catalog.account(c.providerAccountId()));
    }

    /** The cluster (null once gone), its provider account and its API (null once gone). */
    private record Target(Cluster cluster, ProviderAccount account, ClusterConnection connection) {
    }

    /** Runs one Service's steps until it is done; returns how many were taken. */
    private int run(Target target, LoadBalancer row, LoadBalancerService service, List<Worker> workers) {
        for (int taken = 0; taken < MAX_STEPS; taken++) {
            ServingPolicy.Decision decision = service != null && service.wanted() ? ServingPolicy.decide(service, workers) : null;
            Step step = LoadBalancerSteps.next(row, service, decision);
            Instant now = clock.instant();
            if (step instanceof LoadBalancerSteps.Done d) {
                return taken;
            } else if (step instanceof LoadBalancerSteps.AddFinalizer a) {
                clusters.addFinalizer(target.connection(), LoadBalancerClusterClient.ref(service));
                service = withFinalizer(service, true);
            } else if (step instanceof LoadBalancerSteps.Refuse r) {
                row = pending(target, row, service, r.refusal(), decision.skipped(), now);
            } else if (step instanceof LoadBalancerSteps.Warn w) {
                event(target, service, WARNING, "SyncLoadBalancerFailed", "Error syncing load balancer: " + w.refusal().message(), now);
                return taken + 1;
            } else if (step instanceof LoadBalancerSteps.Claim c) {
                row = claim(target, row, service, c.serve(), now);
                if (row.state() == LoadBalancerState.PENDING) {
                    return taken + 1;
                }
            } else if (step instanceof LoadBalancerSteps.Reserve r) {
                String ip = provider(target).reserveAddress(at(row), "Service " + row.namespace() + "/" + row.service()
                        + " of cluster " + row.clusterId());
                LoadBalancer next = row.serving(ip, now);
                row = save(row, next, new LoadBalancerEvent.AddressAllocated(next, now));
                listener.allocated(row);
                LOG.info("cluster {}: Service {} holds address {} ({})", row.clusterId(), service.key(), ip, row.providerName());
            } else if (step instanceof LoadBalancerSteps.Program p) {
                ServingPolicy.Serve serve = p.serve();
                boolean firstTime = row.healthCheck() == null;
                skippedPorts(target, service, serve.skipped(), now);
                provider(target).ensureForwarding(at(row), row.address(),
                        new LoadBalancerProvider.Forwarding(serve.portNumbers(), serve.backends(), serve.healthCheck()));
                LoadBalancer before = row;
                row = save(row, row.programmed(serve.portNumbers(), serve.backends(), serve.healthCheck(), now), null);
                if (!firstTime) {
                    event(target, service, NORMAL, "UpdatedLoadBalancer", "Updated load balancer with new hosts ("
                            + serve.backends().size() + ") and ports " + serve.portNumbers(), now);
                    LOG.info("cluster {}: load balancer {} of {} now backed by {} nodes on ports {} (was {} on {})",
                            row.clusterId(), row.providerName(), service.key(), serve.backends().size(), serve.portNumbers(),
                            before.backends().size(), before.ports());
                }
            } else if (step instanceof LoadBalancerSteps.PublishStatus p) {
                clusters.writeIngress(target.connection(), LoadBalancerClusterClient.ref(service), p.address());
                event(target, service, NORMAL, "EnsuredLoadBalancer", "Ensured load balancer " + p.address(), now);
                service = withIngress(service, p.address());
            } else if (step instanceof LoadBalancerSteps.Forget f) {
                LoadBalancer gone = row;
                tx.inTransaction(() -> rows.delete(gone.clusterId(), gone.serviceUid(), gone.version()) ? null : conflict(gone));
                row = null;
            } else if (step instanceof LoadBalancerSteps.BeginRelease b) {
                if (target.connection() != null && service != null) {
                    event(target, service, NORMAL, "DeletingLoadBalancer", "Deleting load balancer", now);
                }
                row = save(row, row.releasing(now), null);
            } else if (step instanceof LoadBalancerSteps.Release r) {
                if (target.account() == null) {
                    // the cluster's account left the catalog: nothing can reach its project
                    LOG.warn("load balancer {} of cluster {}: its provider account is gone; its address cannot be released",
                            row.providerName(), row.clusterId());
                    return taken;
                }
                provider(target).release(at(row), row.zones());
                LoadBalancer gone = row;
                tx.inTransaction(() -> {
                    if (!rows.delete(gone.clusterId(), gone.serviceUid(), gone.version())) {
                        return conflict(gone);
                    }
                    outbox.append(new LoadBalancerEvent.AddressReleased(gone, now).stored());
                    return null;
                });
                listener.released(gone);
                LOG.info("cluster {}: load balancer {} released ({})", gone.clusterId(), gone.providerName(), gone.address());
                if (target.connection() != null && service != null) {
                    event(target, service, NORMAL, "DeletedLoadBalancer", "Deleted load balancer", now);
                }
                row = null;
            } else if (step instanceof LoadBalancerSteps.ClearStatus c) {
                clusters.writeIngress(target.connection(), LoadBalancerClusterClient.ref(service), null);
                service = withIngress(service, null);
            } else if (step instanceof LoadBalancerSteps.RemoveFinalizer f) {
                clusters.removeFinalizer(target.connection(), LoadBalancerClusterClient.ref(service));
                service = withFinalizer(service, false);
            }
        }
        LOG.warn("cluster {}: a load balancer took more than {} steps in one pass; the next pass goes on", target.cluster() == null
                ? "(gone)" : target.cluster().id(), MAX_STEPS);
        return MAX_STEPS;
    }

    /**
     * Takes room for the Service: under the region's lock, the cap and the pool are counted and the row becomes
     * {@code RESERVING}, or stays (becomes) pending with the limit it met.
     */
    private LoadBalancer claim(Target target, LoadBalancer row, LoadBalancerService service, ServingPolicy.Serve serve, Instant now) {
        LoadBalancerSettings s = settings.get();
        Cluster cluster = target.cluster();
        String region = cluster.region();
        Refusal[] refused = new Refusal[1];
        LoadBalancer claimed = tx.inTransaction(() -> {
            rows.lockRegion(region);
            AllocationPolicy.Room room = new AllocationPolicy.Room(s.regionEnabled(region), s.clusterCap(cluster.tenantId()),
                    rows.holdingInCluster(cluster.id()), s.poolLimit(region), rows.holdingInRegion(region));
            Optional<Refusal> refusal = AllocationPolicy.check(region, room);
            if (refusal.isPresent()) {
                refused[0] = refusal.get();
                return null;
            }
            LoadBalancer next = row == null
                    ? LoadBalancer.first(cluster.id(), cluster.tenantId(), service, target.account().cloudProject(), region,
                    LoadBalancerState.RESERVING, null, now)
                    : row.reserving(now);
            return write(row, next, null);
        });
        if (claimed == null) {
            Refusal r = refused[0];
            boolean same = row != null && row.refusal() == r.reason() && r.message().equals(row.refusalText());
            return same ? row : pending(target, row, service, r, serve.skipped(), now);
        }
        event(target, service, NORMAL, "EnsuringLoadBalancer", "Ensuring load balancer", now);
        skippedPorts(target, service, serve.skipped(), now);
        return claimed;
    }

    /** Saves the row pending with {@code refusal}, tells the outbox once per refusal, and posts it on the Service. */
    private LoadBalancer pending(Target target, LoadBalancer row, LoadBalancerService service, Refusal refusal,
                                 List<ServicePort> skipped, Instant now) {
        Cluster cluster = target.cluster();
        LoadBalancer next = row == null
                ? LoadBalancer.first(cluster.id(), cluster.tenantId(), service, target.account().cloudProject(), cluster.region(),
                LoadBalancerState.PENDING, refusal, now)
                : row.pending(refusal, now);
        LoadBalancer saved = save(row, next, new LoadBalancerEvent.LoadBalancerRefused(next, now));
        listener.refused(saved, refusal.reason());
        LOG.info("cluster {}: Service {} stays pending: {}", cluster.id(), service.key(), refusal.message());
        event(target, service, WARNING, "SyncLoadBalancerFailed", "Error syncing load balancer: " + refusal.message(), now);
        skippedPorts(target, service, skipped, now);
        return saved;
    }

    /** A Warning naming each port that is not served because it is not TCP. */
    private void skippedPorts(Target target, LoadBalancerService service, List<ServicePort> skipped, Instant now) {
        for (ServicePort p : skipped) {
            event(target, service, WARNING, "UnsupportedProtocol", "Port " + p.label()
                    + " is not served: the load balancer forwards TCP only", now);
        }
    }

    private LoadBalancer save(LoadBalancer before, LoadBalancer next, LoadBalancerEvent event) {
        return tx.inTransaction(() -> write(before, next, event));
    }

    /** Inserts or updates the row, with its event; a row changed by someone else since is a conflict. */
    private LoadBalancer write(LoadBalancer before, LoadBalancer next, LoadBalancerEvent event) {
        LoadBalancer saved;
        if (before == null) {
            rows.insert(next);
            saved = next.withVersion(0);
        } else {
            if (!rows.update(next, before.version())) {
                return conflict(before);
            }
            saved = next.withVersion(before.version() + 1);
        }
        if (event != null) {
            outbox.append(event.stored());
        }
        return saved;
    }

    private static <T> T conflict(LoadBalancer row) {
        throw new ProviderException(ProviderException.Kind.FAILED_PRECONDITION, "the load balancer row of "
                + row.namespace() + "/" + row.service() + " changed under this pass; the next pass reads it again");
    }

    /**
     * An Event on the Service, named after what it says, so that saying it again (a later pass, a replay after a
     * crash) shows it once.
     */
    private void event(Target target, LoadBalancerService service, String type, String reason, String message, Instant now) {
        if (target.connection() == null || service == null) {
            return;
        }
        String name = service.name() + ".lb-" + Ids.hashed("load-balancer-event", 16, service.uid(), reason, message);
        try {
            clusters.postEvent(target.connection(), LoadBalancerClusterClient.ref(service),
                    new PostedEvent(name, type, reason, message, now));
        } catch (ProviderException e) {
            // an Event is told, not relied on: the step it tells of stands
            LOG.warn("cluster {}: posting {} on Service {} failed: {}", target.cluster().id(), reason, service.key(), e.getMessage());
        }
    }

    private LoadBalancerProvider provider(Target target) {
        return providers.forAccount(target.account());
    }

    private static LoadBalancerProvider.At at(LoadBalancer row) {
        return new LoadBalancerProvider.At(row.project(), row.region(), row.providerName(), LoadBalancer.groupName(row.clusterId()));
    }

    private static LoadBalancerService withFinalizer(LoadBalancerService s, boolean finalizer) {
        return new LoadBalancerService(s.namespace(), s.name(), s.uid(), s.typeLoadBalancer(), s.loadBalancerClass(), s.ports(),
                s.allocateNodePorts(), s.localTraffic(), s.healthCheckNodePort(), s.deleting(), finalizer, s.ingressIp());
    }

    private static LoadBalancerService withIngress(LoadBalancerService s, String ip) {
        return new LoadBalancerService(s.namespace(), s.name(), s.uid(), s.typeLoadBalancer(), s.loadBalancerClass(), s.ports(),
                s.allocateNodePorts(), s.localTraffic(), s.healthCheckNodePort(), s.deleting(), s.finalizer(), ip);
    }
}
