package com.bettercompute.application.reconcile;

import com.bettercompute.application.cluster.ClusterEvents;
import com.bettercompute.application.nodepool.NodePoolEvents;
import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.application.provider.ClusterLocator;
import com.bettercompute.application.provider.ClusterObservation;
import com.bettercompute.application.provider.ClusterProvider;
import com.bettercompute.application.provider.ProviderException;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.usage.ClusterHours;
import com.bettercompute.domain.usage.UsageRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * One pass of the {@code kubernetes.clusters} reconciler over one cluster: load → observe the provider
 * → decide (pure, {@link ClusterDecider}) → save the intent → act (at most one provider call) → save
 * the outcome with the events and the cluster-hours it owes → say when to look again. No threads and
 * no sleeping here: the scheduler in bootstrap owns those, and the lease that keeps two replicas off
 * one cluster.
 *
 * <p>Crash safety: every provider call is idempotent on the deterministic provider-side name, and the
 * intent is saved before the call. A process killed at any moment leaves a row that the next pass
 * reads as it is; observing the provider tells it what really happened.
 */
public final class ReconcileCluster {
    private static final Logger log = LoggerFactory.getLogger(ReconcileCluster.class);
    /** At most this many hours are billed in one pass; a cluster far behind catches up over several. */
    static final int MAX_HOURS_PER_PASS = 24 * 31;

    private final Transactions tx;
    private final ClusterRepository clusters;
    private final CatalogRepository catalog;
    private final AccessRepository access;
    private final EventOutbox outbox;
    private final UsageLedger usage;
    private final ClusterProviders providers;
    private final ClusterDecider decider;
    private final Cadence cadence;
    private final Clock clock;

    public ReconcileCluster(Transactions tx, ClusterRepository clusters, CatalogRepository catalog, AccessRepository access,
                            EventOutbox outbox, UsageLedger usage, ClusterProviders providers, Cadence cadence, Clock clock) {
        this.tx = tx;
        this.clusters = clusters;
        this.catalog = catalog;
        this.access = access;
        this.outbox = outbox;
        this.usage = usage;
        this.providers = providers;
        this.cadence = cadence;
        this.decider = new ClusterDecider(cadence);
        this.clock = clock;
    }

    /** Runs one pass. Returns when to look at the cluster again; empty once it is deleted (or unknown). */
    public Optional<Duration> reconcile(String clusterId) {
        Optional<Cluster> found = clusters.find(clusterId);
        if (found.isEmpty() || found.get().state() == ClusterState.DELETED) {
            return Optional.empty();
        }
        Cluster c = found.get();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Optional<ProviderAccount> account = catalog.account(c.providerAccountId());
        if (account.isEmpty()) {
            ClusterDecision lost = new ClusterDecision(c.toBuilder().state(ClusterState.ERROR)
                    .message("The cluster's provider account " + c.providerAccountId() + " is no longer in the catalog.").build(),
                    new ProviderAction.None(), c.state() == ClusterState.ERROR ? List.of() : List.of(ClusterEvents.ERROR), cadence.settled());
            return save(c, lost, now) ? Optional.of(cadence.settled()) : Optional.of(Duration.ZERO);
        }
        ClusterProvider provider = providers.forAccount(account.get());
        ClusterLocator at = ProviderSpecs.locator(c, account.get());
        ClusterObservation observation;
        try {
            observation = provider.observe(at);
        } catch (ProviderException e) {
            // The provider cannot be seen now: decide nothing, look again soon.
            log.warn("cluster {}: observing {} failed ({}): {}", c.id(), at, e.kind(), e.getMessage());
            ClusterDecision wait = new ClusterDecision(c, new ProviderAction.None(), List.of(), cadence.converging());
            return save(c, wait, now) ? Optional.of(cadence.converging()) : Optional.of(Duration.ZERO);
        }
        ClusterDecision decided = decider.decide(c, observation, at, now);
        if (!decided.acts()) {
            return save(c, decided, now) ? Optional.ofNullable(decided.requeue()) : Optional.of(Duration.ZERO);
        }
        // The intent first: if we die during the call, the next pass knows what was being asked.
        Cluster intent = ClusterDecider.revised(c, withNext(decided.next(), now, cadence.converging()), now);
        if (!saveRow(c, intent, decided.events(), now)) {
            return Optional.of(Duration.ZERO);
        }
        ClusterDecision outcome;
        try {
            act(provider, at, decided.action());
            outcome = decider.accepted(new ClusterDecision(intent, decided.action(), List.of(), decided.requeue()), now);
        } catch (ProviderException e) {
            log.info("cluster {}: the provider refused {} ({}): {}", c.id(), decided.action().label(), e.kind(), e.getMessage());
            outcome = decider.refused(new ClusterDecision(intent, decided.action(), List.of(), decided.requeue()), e, now);
        }
        return save(intent, outcome, now) ? Optional.ofNullable(outcome.requeue()) : Optional.of(Duration.ZERO);
    }

    private static void act(ClusterProvider provider, ClusterLocator at, ProviderAction action) {
        if (action instanceof ProviderAction.CreateCluster a) {
            provider.createCluster(a.spec());
        } else if (action instanceof ProviderAction.ChangeCluster a) {
            provider.updateCluster(at, a.change());
        } else if (action instanceof ProviderAction.DeleteCluster) {
            provider.deleteCluster(at);
        } else if (action instanceof ProviderAction.CreateNodePool a) {
            provider.createNodePool(at, a.spec());
        } else if (action instanceof ProviderAction.DeleteNodePool a) {
            provider.deleteNodePool(at, a.name());
        } else if (action instanceof ProviderAction.ResizeNodePool a) {
            provider.resizeNodePool(at, a.name(), a.nodeCount());
        } else if (action instanceof ProviderAction.SetAutoscaling a) {
            provider.setNodePoolAutoscaling(at, a.name(), a.autoscaling());
        } else if (action instanceof ProviderAction.SetLabelsAndTaints a) {
            provider.updateNodePoolLabelsAndTaints(at, a.name(), a.labels(), a.taints());
        }
    }

    private boolean save(Cluster before, ClusterDecision decision, Instant now) {
        Cluster next = ClusterDecider.revised(before, withNext(decision.next(), now, decision.requeue()), now);
        return saveRow(before, next, decision.events(), now);
    }

    private static Cluster withNext(Cluster c, Instant now, Duration requeue) {
        return c.toBuilder().progress(c.progress().withNextAttemptAt(requeue == null ? null : now.plus(requeue))).build();
    }

    /**
     * Saves the row (if nobody changed it since {@code before}), its events (the decision's cluster events, then
     * those of its node pools' moves), its billing: one transaction.
     */
    private boolean saveRow(Cluster before, Cluster next, List<String> events, Instant now) {
        return tx.inTransaction(() -> {
            if (!clusters.update(next, before.version())) {
                return false;
            }
            for (String type : events) {
                outbox.append(ClusterEvents.of(type, next, now));
            }
            for (var event : NodePoolEvents.transitions(before, next, now)) {
                outbox.append(event);
            }
            if (next.state() == ClusterState.DELETED) {
                access.removeOwner(next.id());
            }
            bill(next, now);
            return true;
        });
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
