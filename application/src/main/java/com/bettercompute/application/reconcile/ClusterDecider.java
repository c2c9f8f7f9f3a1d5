package com.bettercompute.application.reconcile;

import com.bettercompute.application.cluster.ClusterEvents;
import com.bettercompute.application.provider.ClusterChange;
import com.bettercompute.application.provider.ClusterLocator;
import com.bettercompute.application.provider.ClusterObservation;
import com.bettercompute.application.provider.ClusterProvider;
import com.bettercompute.application.provider.ClusterStatus;
import com.bettercompute.application.provider.NodePoolObservation;
import com.bettercompute.application.provider.NodePoolStatus;
import com.bettercompute.application.provider.ProviderException;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The pure heart of the {@code kubernetes.clusters} reconciler: from a cluster as stored and the
 * provider's observation of it, what to save, which one provider call to make, which events to publish
 * and when to look again. No I/O, no clock but the {@code now} it is given.
 *
 * <p>The phases, in order: a requested delete; a cluster missing at the provider (create it, unless it
 * existed before: then it was deleted behind our back and shows {@code error}, never recreated); a
 * cluster of our name that is not ours ({@code error}, left alone); work in flight at the provider
 * (wait); the first difference between what the tenant wants and what the provider has (one call);
 * nothing left to do ({@code ready}).
 */
public final class ClusterDecider {
    private final Cadence cadence;

    public ClusterDecider(Cadence cadence) {
        this.cadence = cadence;
    }

    public ClusterDecision decide(Cluster c, ClusterObservation obs, ClusterLocator at, Instant now) {
        boolean ours = obs.exists() && c.id().equals(obs.clusterId());
        if (c.deleteRequested()) {
            return decideDelete(c, obs, ours, now);
        }
        if (!obs.exists()) {
            if (c.progress().providerAcceptedAt() != null) {
                return error(c, "The cluster was deleted at the provider outside better-compute; delete it here, or create a new one.",
                        cadence.settled(), now);
            }
            return act(c.toBuilder().build(), new ProviderAction.CreateCluster(ProviderSpecs.cluster(c, at)), cadence.converging(), now);
        }
        if (!ours) {
            return error(c, "A cluster named " + at.name() + " exists in project " + at.project()
                    + " and was not created by better-compute; it is left alone.", cadence.settled(), now);
        }
        Cluster seen = removedPoolsGone(observed(c, obs, now), obs, now);
        if (obs.status() == ClusterStatus.ERROR || obs.status() == ClusterStatus.DEGRADED) {
            return error(seen, providerMessage(obs, "The provider reports the cluster " + obs.status().name().toLowerCase() + "."),
                    cadence.settled(), now);
        }
        if (obs.status() == ClusterStatus.STOPPING) {
            return error(seen, "The cluster is being deleted at the provider outside better-compute.", cadence.settled(), now);
        }
        Optional<NodePool> brokenPool = brokenPool(seen, obs);
        if (brokenPool.isPresent()) {
            NodePoolObservation o = obs.nodePool(brokenPool.get().spec().name()).orElseThrow();
            String poolMessage = o.statusMessage() == null ? "The provider reports the node pool in error." : o.statusMessage();
            Cluster failedPool = withPoolState(seen, brokenPool.get().spec().name(), ClusterState.ERROR, poolMessage, now);
            return error(failedPool, "Node pool " + brokenPool.get().spec().name() + ": " + poolMessage, cadence.settled(), now);
        }
        if (!obs.settled() || poolsInFlight(obs)) {
            ClusterState waiting = seen.readyAt() == null ? ClusterState.PROVISIONING : ClusterState.UPDATING;
            return new ClusterDecision(transition(seen, waiting, null, now), new ProviderAction.None(), events(c, waiting, null), cadence.converging());
        }
        ProviderAction needed = firstDifference(seen, obs);
        if (needed instanceof ProviderAction.None) {
            return ready(c, seen, now);
        }
        if (needed.label().equals(c.progress().pendingAction()) && c.state() != ClusterState.ERROR) {
            // We asked for exactly this, the provider finished, and it is still not so: the operation failed.
            String message = providerMessage(obs, "The provider did not apply " + needed.label() + ".");
            String pool = ProviderAction.poolName(needed);
            Cluster failed = pool == null || needed instanceof ProviderAction.DeleteNodePool ? seen
                    : withPoolState(seen, pool, ClusterState.ERROR, message, now);
            return error(failed, message, cadence.settled(), now);
        }
        return act(seen, needed, cadence.converging(), now);
    }

    /** The provider accepted the action: what to save now (the decision's events were published with the intent). */
    public ClusterDecision accepted(ClusterDecision decided, Instant now) {
        Cluster c = decided.next();
        Cluster.Builder b = c.toBuilder();
        ProviderAction a = decided.action();
        Cluster.Progress p = c.progress();
        if (c.state() == ClusterState.ERROR) {
            b.state(a instanceof ProviderAction.DeleteCluster ? ClusterState.DELETING
                    : c.readyAt() == null ? ClusterState.PROVISIONING : ClusterState.UPDATING).message(null);
        }
        if (a instanceof ProviderAction.CreateCluster) {
            b.state(ClusterState.PROVISIONING);
            p = new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt() == null ? now : p.providerAcceptedAt(),
                    p.pendingAction(), p.failures(), p.nextAttemptAt(), p.caCertificate());
        } else if (a instanceof ProviderAction.CreateNodePool create) {
            b.nodePools(c.nodePools().stream().map(np -> np.spec().name().equals(create.spec().name()) && np.live()
                    && np.state() != ClusterState.PROVISIONING ? np.withState(ClusterState.PROVISIONING, null, now) : np).toList());
        } else if (a instanceof ProviderAction.ResizeNodePool || a instanceof ProviderAction.SetAutoscaling
                || a instanceof ProviderAction.SetLabelsAndTaints) {
            // A change in place: the pool reads updating until the provider has it (it may have drifted while ready).
            String name = ProviderAction.poolName(a);
            b.nodePools(c.nodePools().stream().map(np -> np.spec().name().equals(name) && np.live()
                    && np.state() != ClusterState.UPDATING && np.state() != ClusterState.PENDING && np.state() != ClusterState.PROVISIONING
                    ? np.withState(ClusterState.UPDATING, null, now) : np).toList());
        }
        return new ClusterDecision(b.progress(p).build(), a, List.of(), decided.requeue());
    }

    /** The provider refused the action: what to save, and when to try again. */
    public ClusterDecision refused(ClusterDecision decided, ProviderException e, Instant now) {
        Cluster c = decided.next();
        Cluster.Progress p = c.progress();
        Cluster.Progress failed = new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), null, p.failures() + 1,
                p.nextAttemptAt(), p.caCertificate());
        Cluster withFailure = c.toBuilder().progress(failed).build();
        boolean delete = decided.action() instanceof ProviderAction.DeleteCluster;
        if (e.kind() == ProviderException.Kind.UNAVAILABLE || e.kind() == ProviderException.Kind.FAILED_PRECONDITION
                || e.kind() == ProviderException.Kind.INTERNAL) {
            // Passing trouble at the provider, or another operation still running: try again soon, quietly.
            return new ClusterDecision(withFailure, decided.action(), List.of(), cadence.converging());
        }
        Duration wait = delete ? cadence.backoff(failed.failures()) : cadence.settled();
        String pool = ProviderAction.poolName(decided.action());
        if (pool != null && !(decided.action() instanceof ProviderAction.DeleteNodePool)) {
            // The pool the provider refused to change shows why, as its cluster does.
            withFailure = withPoolState(withFailure, pool, ClusterState.ERROR, e.getMessage(), now);
        }
        return error(withFailure, e.getMessage(), wait, now);
    }

    private ClusterDecision decideDelete(Cluster c, ClusterObservation obs, boolean ours, Instant now) {
        if (!obs.exists() || !ours) {
            return deleted(c, now);
        }
        Cluster seen = observed(c, obs, now);
        if (obs.status() == ClusterStatus.STOPPING || obs.operationRunning()) {
            ClusterState state = c.state() == ClusterState.ERROR ? ClusterState.DELETING : c.state();
            return new ClusterDecision(transition(seen, state, null, now), new ProviderAction.None(), List.of(), cadence.converging());
        }
        ProviderAction delete = new ProviderAction.DeleteCluster();
        if (delete.label().equals(c.progress().pendingAction()) && c.state() != ClusterState.ERROR) {
            Cluster.Progress p = seen.progress();
            Cluster failed = seen.toBuilder().progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), p.pendingAction(),
                    p.failures() + 1, p.nextAttemptAt(), p.caCertificate())).build();
            return error(failed, providerMessage(obs, "The provider did not delete the cluster."),
                    cadence.backoff(failed.progress().failures()), now);
        }
        Cluster deleting = transition(seen, ClusterState.DELETING, null, now);
        return new ClusterDecision(withIntent(deleting, delete), delete, List.of(), cadence.converging());
    }

    private ClusterDecision deleted(Cluster c, Instant now) {
        List<NodePool> pools = c.nodePools().stream()
                .map(p -> p.state() == ClusterState.DELETED ? p : p.withState(ClusterState.DELETED, null, now)).toList();
        Cluster.Progress p = c.progress();
        Cluster gone = c.toBuilder().state(ClusterState.DELETED).message(null).nodePools(pools).deletedAt(now)
                .progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), null, 0, null, p.caCertificate()))
                .build();
        return new ClusterDecision(gone, new ProviderAction.None(), List.of(ClusterEvents.DELETED), null);
    }

    private ClusterDecision ready(Cluster before, Cluster seen, Instant now) {
        List<String> events = new ArrayList<>();
        Cluster.Builder b = seen.toBuilder();
        if (seen.readyAt() == null) {
            events.add(ClusterEvents.READY);
            b.readyAt(now);
        } else if (before.state() == ClusterState.UPDATING || before.state() == ClusterState.ERROR
                || before.state() == ClusterState.PROVISIONING
                || (before.kubernetesVersion() != null && !before.kubernetesVersion().equals(seen.kubernetesVersion()))) {
            // Ready again after a change, or the provider moved it to another version (a release-channel upgrade).
            events.add(ClusterEvents.UPDATED);
        }
        List<NodePool> pools = seen.nodePools().stream()
                .map(p -> p.state() == ClusterState.READY || !p.live() ? p : p.withState(ClusterState.READY, null, now))
                .toList();
        Cluster.Progress p = seen.progress();
        Cluster ready = transition(b.nodePools(pools).progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), null, 0,
                p.nextAttemptAt(), p.caCertificate())).build(), ClusterState.READY, null, now);
        return new ClusterDecision(ready, new ProviderAction.None(), events, cadence.settled());
    }

    private ClusterDecision act(Cluster c, ProviderAction action, Duration requeue, Instant now) {
        ClusterState state;
        String message = null;
        if (c.state() == ClusterState.ERROR) {
            // A retry: the cluster shows the error until the provider accepts the call, so a retry the
            // provider refuses again changes nothing the tenant sees and publishes nothing.
            state = ClusterState.ERROR;
            message = c.message();
        } else if (action instanceof ProviderAction.CreateCluster || c.state() == ClusterState.PENDING) {
            state = c.state();
        } else {
            state = c.readyAt() == null ? ClusterState.PROVISIONING : ClusterState.UPDATING;
        }
        Cluster next = transition(c, state, message, now);
        return new ClusterDecision(withIntent(next, action), action, List.of(), requeue);
    }

    private ClusterDecision error(Cluster c, String message, Duration requeue, Instant now) {
        Cluster failed = transition(c, ClusterState.ERROR, message, now);
        return new ClusterDecision(failed, new ProviderAction.None(), events(c, ClusterState.ERROR, message), requeue);
    }

    /** Events of a move to {@code state}: {@code error} when it becomes one (others come from {@link #ready}). */
    private static List<String> events(Cluster before, ClusterState state, String message) {
        if (state == ClusterState.ERROR && (before.state() != ClusterState.ERROR || !Objects.equals(before.message(), message))) {
            return List.of(ClusterEvents.ERROR);
        }
        return List.of();
    }

    private static Cluster transition(Cluster c, ClusterState state, String message, Instant now) {
        return c.toBuilder().state(state).message(message).build();
    }

    private static Cluster withIntent(Cluster c, ProviderAction action) {
        Cluster.Progress p = c.progress();
        return c.toBuilder().progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), action.label(),
                p.failures(), p.nextAttemptAt(), p.caCertificate())).build();
    }

    /** Copies what the provider reports: versions, endpoint, CA, node pool states; and that it exists there. */
    private static Cluster observed(Cluster c, ClusterObservation obs, Instant now) {
        Cluster.Progress p = c.progress();
        List<NodePool> pools = new ArrayList<>();
        for (NodePool pool : c.nodePools()) {
            Optional<NodePoolObservation> o = obs.nodePool(pool.spec().name());
            ClusterState state = pool.state();
            if (o.isPresent() && pool.state() != ClusterState.DELETING && pool.state() != ClusterState.DELETED) {
                state = switch (o.get().status()) {
                    case RUNNING -> pool.state() == ClusterState.PENDING ? ClusterState.PROVISIONING : pool.state();
                    case PROVISIONING -> ClusterState.PROVISIONING;
                    case RECONCILING -> pool.state() == ClusterState.READY ? ClusterState.UPDATING : pool.state();
                    default -> pool.state();
                };
            }
            pools.add(state == pool.state() ? pool : pool.withState(state, null, now));
        }
        Cluster seen = c.toBuilder().kubernetesVersion(obs.masterVersion()).nodeVersion(obs.nodeVersion()).endpoint(obs.endpoint())
                .nodePools(pools)
                .progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt() == null ? now : p.providerAcceptedAt(),
                        p.pendingAction(), p.failures(), p.nextAttemptAt(), obs.caCertificate() == null ? p.caCertificate() : obs.caCertificate()))
                .build();
        return seen;
    }

    /** A node pool the provider is still creating, changing or deleting: its operation has not landed yet. */
    private static boolean poolsInFlight(ClusterObservation obs) {
        return obs.nodePools().stream().anyMatch(p -> p.status() == NodePoolStatus.PROVISIONING
                || p.status() == NodePoolStatus.RECONCILING || p.status() == NodePoolStatus.STOPPING);
    }

    /** A node pool of ours (not one the tenant removed) the provider reports in error. */
    private static Optional<NodePool> brokenPool(Cluster c, ClusterObservation obs) {
        for (NodePool pool : c.nodePools()) {
            Optional<NodePoolObservation> o = obs.nodePool(pool.spec().name());
            if (pool.live() && o.isPresent() && (o.get().status() == NodePoolStatus.ERROR || o.get().status() == NodePoolStatus.RUNNING_WITH_ERROR)) {
                return Optional.of(pool);
            }
        }
        return Optional.empty();
    }

    /** Pools the tenant removed that the provider no longer has: deleted (kept in the list for the record). */
    static Cluster removedPoolsGone(Cluster c, ClusterObservation obs, Instant now) {
        if (c.nodePools().stream().noneMatch(p -> p.state() == ClusterState.DELETING && obs.nodePool(p.spec().name()).isEmpty())) {
            return c;
        }
        return c.toBuilder().nodePools(c.nodePools().stream()
                .map(p -> p.state() == ClusterState.DELETING && obs.nodePool(p.spec().name()).isEmpty()
                        ? p.withState(ClusterState.DELETED, null, now) : p)
                .toList()).build();
    }

    /** The live pool of that name moved to {@code state} (a no-op when it is there already with that message). */
    private static Cluster withPoolState(Cluster c, String name, ClusterState state, String message, Instant now) {
        return c.toBuilder().nodePools(c.nodePools().stream()
                .map(p -> p.live() && p.spec().name().equals(name) && (p.state() != state || !Objects.equals(p.message(), message))
                        ? p.withState(state, message, now) : p)
                .toList()).build();
    }

    /** The first thing the provider has otherwise than the tenant wants, in the order it must be fixed. */
    static ProviderAction firstDifference(Cluster c, ClusterObservation obs) {
        if (c.mode() == ClusterMode.STANDARD) {
            for (NodePool pool : c.nodePools()) {
                if (pool.state() != ClusterState.DELETED && pool.state() != ClusterState.DELETING
                        && obs.nodePool(pool.spec().name()).isEmpty()) {
                    return new ProviderAction.CreateNodePool(ProviderSpecs.nodePool(pool));
                }
            }
            if (obs.nodePool(ClusterProvider.INITIAL_NODE_POOL).isPresent()
                    && c.nodePools().stream().noneMatch(p -> p.spec().name().equals(ClusterProvider.INITIAL_NODE_POOL))) {
                return new ProviderAction.DeleteNodePool(ClusterProvider.INITIAL_NODE_POOL);
            }
            for (NodePool pool : c.nodePools()) {
                if (pool.state() == ClusterState.DELETING && obs.nodePool(pool.spec().name()).isPresent()) {
                    return new ProviderAction.DeleteNodePool(pool.spec().name());
                }
            }
            for (NodePool pool : c.nodePools()) {
                Optional<NodePoolObservation> o = obs.nodePool(pool.spec().name());
                if (pool.live() && o.isPresent()) {
                    ProviderAction change = poolDifference(pool, o.get());
                    if (!(change instanceof ProviderAction.None)) {
                        return change;
                    }
                }
            }
        }
        if (!ProviderSpecs.versionMatches(c.requestedVersion(), obs.masterVersion())) {
            return new ProviderAction.ChangeCluster(new ClusterChange.MasterVersion(c.requestedVersion()));
        }
        if (obs.releaseChannel() != ProviderSpecs.channel(c.releaseChannel())) {
            return new ProviderAction.ChangeCluster(new ClusterChange.Channel(ProviderSpecs.channel(c.releaseChannel())));
        }
        if (!new HashSet<>(c.authorizedNetworks()).equals(new HashSet<>(obs.authorizedNetworks()))) {
            return new ProviderAction.ChangeCluster(new ClusterChange.AuthorizedNetworks(c.authorizedNetworks()));
        }
        return new ProviderAction.None();
    }

    /**
     * What differs between a pool as wanted and as the provider has it, in the order it is fixed: autoscaling
     * (set, changed or turned off), then the size (only without autoscaling: with it the provider sizes the
     * pool), then labels and taints. Machine type, disk, spot, accelerators and zones are fixed at creation.
     */
    static ProviderAction poolDifference(NodePool pool, NodePoolObservation o) {
        var wanted = ProviderSpecs.nodePool(pool);
        if (!Objects.equals(wanted.autoscaling(), o.autoscaling())) {
            return new ProviderAction.SetAutoscaling(wanted.name(), wanted.autoscaling());
        }
        if (wanted.autoscaling() == null && wanted.nodeCount() != o.nodeCount()) {
            return new ProviderAction.ResizeNodePool(wanted.name(), wanted.nodeCount());
        }
        if (!wanted.labels().equals(o.labels()) || !new HashSet<>(wanted.taints()).equals(new HashSet<>(o.taints()))
                || wanted.taints().size() != o.taints().size()) {
            return new ProviderAction.SetLabelsAndTaints(wanted.name(), wanted.labels(), wanted.taints());
        }
        return new ProviderAction.None();
    }

    private static String providerMessage(ClusterObservation obs, String fallback) {
        if (obs.operationError() != null && !obs.operationError().isBlank()) {
            return obs.operationError();
        }
        if (obs.statusMessage() != null && !obs.statusMessage().isBlank()) {
            return obs.statusMessage();
        }
        return fallback;
    }

    /**
     * The cluster to save after a pass changed {@code before} into {@code after}: its revision is bumped
     * (and {@code updatedAt} set) once if anything the API shows changed — the bookkeeping of
     * {@link Cluster.Progress} alone is not a change.
     */
    public static Cluster revised(Cluster before, Cluster after, Instant now) {
        if (!visible(before, after)) {
            return after.toBuilder().version(before.version()).build();
        }
        return after.toBuilder().version(before.version() + 1).updatedAt(now).build();
    }

    /** Whether anything the API shows differs. */
    static boolean visible(Cluster a, Cluster b) {
        return a.state() != b.state() || !Objects.equals(a.message(), b.message())
                || !Objects.equals(a.kubernetesVersion(), b.kubernetesVersion()) || !Objects.equals(a.nodeVersion(), b.nodeVersion())
                || !Objects.equals(a.endpoint(), b.endpoint()) || !Objects.equals(a.readyAt(), b.readyAt())
                || !Objects.equals(a.deletedAt(), b.deletedAt())
                || !a.nodePools().stream().map(p -> p.state() + "/" + p.message()).toList()
                        .equals(b.nodePools().stream().map(p -> p.state() + "/" + p.message()).toList());
    }
}
