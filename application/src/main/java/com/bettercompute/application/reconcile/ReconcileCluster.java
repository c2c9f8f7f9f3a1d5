package com.bettercompute.application.reconcile;

import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.application.volume.ClusterVolumes;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterReadiness;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.reconcile.ClusterPlan.AskOperation;
import com.bettercompute.application.reconcile.ClusterPlan.Call;
import com.bettercompute.application.reconcile.ClusterPlan.Write;
import com.bettercompute.application.reconcile.ClusterPlan.Save;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.event.ClusterEvent;
import com.bettercompute.domain.event.KubernetesEvent;
import com.bettercompute.domain.usage.ClusterHours;
import com.bettercompute.domain.usage.UsageRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * One pass of the {@code kubernetes.clusters} reconciler over one cluster: load → observe the provider (one
 * read of the cluster) → {@link ClusterDecider#decide} (pure) → run the {@link ClusterPlan} top to bottom:
 * save, or ask how our last operation ended, or save the intent → make the one provider call → save the
 * answer. Each save carries its events, the cluster-hours it owes and the time of the next look. No threads
 * and no sleeping here: the scheduler in bootstrap owns those, and the lease that keeps two replicas off one
 * cluster.
 *
 * <p>Crash safety: every provider call is idempotent on the deterministic provider-side name, and the
 * intent is saved before the call. A process killed at any moment leaves a row that the next pass
 * reads as it is; observing the provider tells it what really happened.
 */
public final class ReconcileCluster {
    private static final Logger log = LoggerFactory.getLogger(ReconcileCluster.class);
    /** At most this many hours are billed in one pass; a cluster far behind catches up over several. */
    static final int MAX_HOURS_PER_PASS = 24 * 31;

    /** How a pass ended, for the scheduler and its metrics. */
    public enum Outcome {
        /** Nothing to ask of the provider: the cluster is as wanted, or the provider is still working. */
        SAVED,
        /** The provider accepted the pass's call. */
        ACCEPTED,
        /** The provider refused the pass's call (passing trouble or a refusal). */
        REFUSED,
        /** The provider could not be observed. */
        UNOBSERVED,
        /** Another writer changed the row first; the pass saved nothing after that and runs again at once. */
        CONFLICT,
        /** The cluster is deleted (or unknown): no more passes. */
        FINISHED,
        /** The pass threw (a bug, or the database failed): told by the scheduler, never returned by a pass. */
        FAILED
    }

    /**
     * What a pass did: its outcome, when to look again (null: never), and how many provider calls it made
     * (calls of the port; a delete also reads the cluster once more inside the adapter).
     */
    public record Pass(Outcome outcome, Duration next, int providerCalls) {
        public Optional<Duration> nextLook() {
            return Optional.ofNullable(next);
        }
    }

    private final Transactions tx;
    private final ClusterRepository clusters;
    private final CatalogRepository catalog;
    private final AccessRepository access;
    private final EventOutbox outbox;
    private final UsageLedger usage;
    private final ClusterProviders providers;
    private final ClusterDecider decider;
    private final Clock clock;
    private final ClusterReadiness readiness;
    /** The clusters' shared volumes, made before their clusters; null: none. */
    private final ClusterVolumes volumes;

    public ReconcileCluster(Transactions tx, ClusterRepository clusters, CatalogRepository catalog, AccessRepository access,
                            EventOutbox outbox, UsageLedger usage, ClusterProviders providers, Cadence cadence, Clock clock) {
        this(tx, clusters, catalog, access, outbox, usage, providers, cadence, clock, ClusterReadiness.NONE);
    }

    /** With {@code readiness} told of each cluster that becomes ready for the first time. */
    public ReconcileCluster(Transactions tx, ClusterRepository clusters, CatalogRepository catalog, AccessRepository access,
                            EventOutbox outbox, UsageLedger usage, ClusterProviders providers, Cadence cadence, Clock clock,
                            ClusterReadiness readiness) {
        this(tx, clusters, catalog, access, outbox, usage, providers, cadence, clock, readiness, null);
    }

    /** With {@code volumes}: a cluster's shared volume is made (or found failed) before the cluster itself. */
    public ReconcileCluster(Transactions tx, ClusterRepository clusters, CatalogRepository catalog, AccessRepository access,
                            EventOutbox outbox, UsageLedger usage, ClusterProviders providers, Cadence cadence, Clock clock,
                            ClusterReadiness readiness, ClusterVolumes volumes) {
        this.volumes = volumes;
        this.readiness = readiness;
        this.tx = tx;
        this.clusters = clusters;
        this.catalog = catalog;
        this.access = access;
        this.outbox = outbox;
        this.usage = usage;
        this.providers = providers;
        this.decider = new ClusterDecider(cadence);
        this.clock = clock;
    }

    /** Runs one pass over the cluster. */
    public Pass reconcile(String clusterId) {
        Optional<Cluster> found = clusters.find(clusterId);
        if (found.isEmpty() || found.get().state() == ClusterState.DELETED) {
            return new Pass(Outcome.FINISHED, null, 0);
        }
        Cluster c = found.get();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Optional<ProviderAccount> account = catalog.account(c.providerAccountId());
        if (account.isEmpty()) {
            return run(c, decider.accountGone(c, now), null, null, now, 0);
        }
        if (volumes != null) {
            Optional<ClusterVolumes.Held> held = volumes.beforeCluster(c, account.get(), now);
            if (held.isPresent()) {
                return new Pass(Outcome.valueOf(held.get().kind().name()), held.get().next(), held.get().providerCalls());
            }
        }
        ClusterProvider provider = providers.forAccount(account.get());
        ClusterLocator at = ProviderSpecs.locator(c, account.get());
        ClusterObservation observation;
        try {
            observation = provider.observe(at);
        } catch (ProviderException e) {
            log.warn("cluster {}: observing {} failed ({}): {}", c.id(), at, e.kind(), e.getMessage());
            Pass pass = run(c, decider.unobservable(c, now), provider, at, now, 1);
            return pass.outcome() == Outcome.CONFLICT ? pass : new Pass(Outcome.UNOBSERVED, pass.next(), pass.providerCalls());
        }
        return run(c, decider.decide(c, observation, at, now), provider, at, now, 1);
    }

    /** Runs the plan; {@code calls} provider calls were made before it. */
    private Pass run(Cluster stored, ClusterPlan plan, ClusterProvider provider, ClusterLocator at, Instant now, int calls) {
        if (plan instanceof AskOperation ask) {
            calls++;
            try {
                plan = ask.then(provider.operation(at, ask.operation()));
            } catch (ProviderException e) {
                log.warn("cluster {}: asking for operation {} failed ({}): {}", stored.id(), ask.operation(), e.kind(), e.getMessage());
                plan = decider.unobservable(stored, now);
            }
        }
        if (plan instanceof Save save) {
            return saved(stored, save.outcome(), Outcome.SAVED, calls, now);
        }
        Call call = (Call) plan;
        // The intent first: if we die during the call, the next pass knows what was being asked.
        if (!save(stored, call.intent(), now)) {
            return new Pass(Outcome.CONFLICT, Duration.ZERO, calls);
        }
        Write answer;
        Outcome how;
        try {
            answer = call.accepted(call.action().call(provider, at));
            how = Outcome.ACCEPTED;
        } catch (ProviderException e) {
            log.info("cluster {}: the provider refused {} ({}): {}", stored.id(), call.action().label(), e.kind(), e.getMessage());
            answer = call.refused(e);
            how = Outcome.REFUSED;
        }
        return saved(call.intent().row(), answer, how, calls + 1, now);
    }

    private Pass saved(Cluster before, Write write, Outcome how, int calls, Instant now) {
        if (!save(before, write, now)) {
            return new Pass(Outcome.CONFLICT, Duration.ZERO, calls);
        }
        return new Pass(write.next() == null ? Outcome.FINISHED : how, write.next(), calls);
    }

    /**
     * Saves the row (if nobody changed it since {@code before}), its events and its billing: one transaction.
     */
    private boolean save(Cluster before, Write write, Instant now) {
        Cluster next = write.row();
        boolean saved = tx.inTransaction(() -> {
            if (!clusters.update(next, before.version())) {
                return false;
            }
            for (KubernetesEvent event : write.events()) {
                outbox.append(event.stored());
            }
            if (next.state() == ClusterState.DELETED) {
                access.removeOwner(next.id());
            }
            bill(next, now);
            return true;
        });
        if (saved && write.events().stream().anyMatch(e -> e instanceof ClusterEvent.ClusterReady)) {
            // after the commit: a listener's failure never undoes the cluster's own state
            try {
                readiness.ready(next);
            } catch (RuntimeException e) {
                log.error("cluster {}: telling that it became ready failed: {}", next.id(), e.toString());
            }
        }
        return saved;
    }

    /** One {@code kubernetes.cluster.hours} record per started hour since the provider accepted the cluster. */
    private void bill(Cluster c, Instant now) {
        Instant accepted = c.progress().providerAcceptedAt();
        if (accepted == null) {
            return;
        }
        BillingMode mode = catalog.pool(c.poolId()).map(Pool::billingMode).orElse(BillingMode.NONE);
        if (mode == BillingMode.NONE) {
            return;
        }
        Instant end = c.deletedAt() != null ? c.deletedAt() : now;
        for (Instant hour : ClusterHours.due(accepted, end, usage.lastHour(c.id()).orElse(null), MAX_HOURS_PER_PASS)) {
            usage.record(new UsageRecord(UsageRecord.CLUSTER_HOURS, c.tenantId(), c.id(), hour, BigDecimal.ONE, now));
        }
    }
}
