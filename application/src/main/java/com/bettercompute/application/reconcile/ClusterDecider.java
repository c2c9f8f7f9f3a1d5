package com.bettercompute.application.reconcile;

import com.bettercompute.application.nodepool.NodePoolEvents;
import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterStatus;
import com.bettercompute.application.port.NodePoolObservation;
import com.bettercompute.application.port.NodePoolStatus;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.reconcile.ClusterPlan.AskOperation;
import com.bettercompute.application.reconcile.ClusterPlan.Call;
import com.bettercompute.application.reconcile.ClusterPlan.Write;
import com.bettercompute.application.reconcile.ClusterPlan.Save;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.event.ClusterEvent;
import com.bettercompute.domain.event.KubernetesEvent;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The pure heart of the {@code kubernetes.clusters} reconciler: from a cluster as stored and the provider's
 * observation of it, the whole {@link ClusterPlan} of a pass — what to save, which one provider call to make,
 * what to save on either answer, which events to publish and when to look again. No I/O, no clock but the
 * {@code now} it is given.
 *
 * <p>The phases, in order: a requested delete; a cluster missing at the provider (create it, unless it
 * existed before: then it was deleted behind our back and shows {@code error}, never recreated); a
 * cluster of our name that is not ours ({@code error}, left alone); work in flight at the provider
 * (wait); the first difference between what the tenant wants and what the provider has (one call);
 * nothing left to do ({@code ready}).
 */
public final class ClusterDecider {
    /**
     * How long after the provider refused Identity Service for GKE it is asked again: it is optional for the cluster's
     * workloads, and a refusal (an organization GKE does not offer it to) rarely changes soon.
     */
    static final Duration IDENTITY_SERVICE_ASKED_AGAIN = Duration.ofHours(1);

    private final Cadence cadence;

    public ClusterDecider(Cadence cadence) {
        this.cadence = cadence;
    }

    /** The plan of a pass over {@code c}, which the provider shows as {@code obs} at {@code at}. */
    public ClusterPlan decide(Cluster c, ClusterObservation obs, ClusterLocator at, Instant now) {
        boolean ours = obs.exists() && c.id().equals(obs.clusterId());
        if (c.deleteRequested()) {
            return decideDelete(c, obs, ours, now);
        }
        if (!obs.exists()) {
            if (c.progress().providerAcceptedAt() != null) {
                return error(c, c, "The cluster was deleted at the provider outside better-compute; delete it here, or create a new one.",
                        cadence.settled(), now);
            }
            return call(c, c, new ProviderAction.CreateCluster(ProviderSpecs.cluster(c, at)), now);
        }
        if (!ours) {
            return error(c, c, "A cluster named " + at.name() + " exists in project " + at.project()
                    + " and was not created by better-compute; it is left alone.", cadence.settled(), now);
        }
        Cluster seen = removedPoolsGone(observed(c, obs, now), obs, now);
        if (obs.status() == ClusterStatus.ERROR || obs.status() == ClusterStatus.DEGRADED) {
            return error(c, seen, providerMessage(null, obs, "The provider reports the cluster " + obs.status().name().toLowerCase() + "."),
                    cadence.settled(), now);
        }
        if (obs.status() == ClusterStatus.STOPPING) {
            return error(c, seen, "The cluster is being deleted at the provider outside better-compute.", cadence.settled(), now);
        }
        Optional<NodePool> brokenPool = brokenPool(seen, obs);
        if (brokenPool.isPresent()) {
            String name = brokenPool.get().spec().name();
            NodePoolObservation o = obs.nodePool(name).orElseThrow();
            String poolMessage = o.statusMessage() == null ? "The provider reports the node pool in error." : o.statusMessage();
            return error(c, seen.withPoolState(name, ClusterState.ERROR, poolMessage, now), "Node pool " + name + ": " + poolMessage,
                    cadence.settled(), now);
        }
        if (obs.busy()) {
            return new Save(outcome(c, seen.converging(), List.of(), cadence.converging(), now));
        }
        ProviderAction needed = firstDifference(seen, obs, now);
        if (needed == null) {
            return ready(c, seen, now);
        }
        if (needed.label().equals(c.progress().pendingAction()) && c.state() != ClusterState.ERROR) {
            // We asked for exactly this and it is still not so: ask how our operation ended before calling it failed.
            Write wait = outcome(c, seen.converging(), List.of(), cadence.converging(), now);
            return new AskOperation(c.progress().operation(), wait, status -> {
                if (c.progress().operation() == null) {
                    // The call's answer was lost (a crash after saving the intent): every call is idempotent, ask again.
                    return call(c, seen, needed, now);
                }
                String message = providerMessage(status, obs, "The provider did not apply " + needed.label() + ".");
                if (turnsOnIdentityService(needed)) {
                    return new Save(identityServiceRefused(c, seen, message, now));
                }
                Cluster failed = needed.pool() == null || needed instanceof ProviderAction.DeleteNodePool ? seen
                        : seen.withPoolState(needed.pool(), ClusterState.ERROR, message, now);
                return error(c, failed, message, cadence.settled(), now);
            });
        }
        return call(c, seen, needed, now);
    }

    /** The cluster's provider account is gone from the catalog: nothing can be asked of the provider. */
    public ClusterPlan accountGone(Cluster c, Instant now) {
        return error(c, c, "The cluster's provider account " + c.providerAccountId() + " is no longer in the catalog.",
                cadence.settled(), now);
    }

    /** The provider could not be observed: decide nothing, look again soon. */
    public ClusterPlan unobservable(Cluster c, Instant now) {
        return new Save(outcome(c, c, List.of(), cadence.converging(), now));
    }

    private ClusterPlan decideDelete(Cluster c, ClusterObservation obs, boolean ours, Instant now) {
        if (!obs.exists() || !ours) {
            return new Save(outcome(c, c.deleted(now), List.of(ClusterEvent.ClusterDeleted::new), null, now));
        }
        Cluster seen = observed(c, obs, now);
        Write wait = outcome(c, c.state() == ClusterState.ERROR ? seen.deleting() : seen, List.of(), cadence.converging(), now);
        if (obs.status() == ClusterStatus.STOPPING || obs.busy()) {
            return new Save(wait);
        }
        ProviderAction delete = new ProviderAction.DeleteCluster();
        if (delete.label().equals(c.progress().pendingAction()) && c.state() != ClusterState.ERROR) {
            return new AskOperation(c.progress().operation(), wait, status -> {
                if (c.progress().operation() == null) {
                    return call(c, seen.deleting(), delete, now);
                }
                Cluster.Progress p = seen.progress();
                Cluster failed = seen.toBuilder().progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(),
                        p.pendingAction(), p.failures() + 1, p.nextAttemptAt(), p.caCertificate(), p.operation())).build();
                return error(c, failed, providerMessage(status, obs, "The provider did not delete the cluster."),
                        cadence.backoff(failed.progress().failures()), now);
            });
        }
        return call(c, seen.deleting(), delete, now);
    }

    private ClusterPlan ready(Cluster before, Cluster seen, Instant now) {
        // A refusal of Identity Service still standing keeps its note on the ready cluster (a ready cluster's only message),
        // and so does a cluster coming up for the first time after its create was refused with it (the note rode along).
        boolean carriesNote = before.state() == ClusterState.READY || (before.readyAt() == null && before.state() != ClusterState.ERROR);
        String note = seen.progress().identityServiceRefusedAt() != null && carriesNote ? before.message() : null;
        List<BiFunction<Cluster, Instant, ClusterEvent>> events = new ArrayList<>();
        if (seen.readyAt() == null) {
            events.add(ClusterEvent.ClusterReady::new);
        } else if (before.state() == ClusterState.UPDATING || before.state() == ClusterState.ERROR
                || before.state() == ClusterState.PROVISIONING
                || (before.kubernetesVersion() != null && !before.kubernetesVersion().equals(seen.kubernetesVersion()))
                || !Objects.equals(before.message(), note)) {
            // Ready again after a change, or the provider moved it to another version (a release-channel upgrade), or the
            // note of a refused Identity Service is gone (the provider has it on now).
            events.add(ClusterEvent.ClusterUpdated::new);
        }
        Cluster next = note == null ? seen.becameReady(now) : seen.readyWithNote(note, now);
        return new Save(outcome(before, next, events, cadence.settled(), now));
    }

    /**
     * The provider refused to turn Identity Service on for {@code seen} (or its operation failed), saying {@code why}:
     * the cluster is ready all the same, its message says what was refused and what it means for people's sign-in, and
     * the time of the refusal is kept so the provider is asked again only {@link #IDENTITY_SERVICE_ASKED_AGAIN} later.
     * {@code updated} (or {@code ready}, the first time) is published when the note is new or its reason changed, so a
     * refusal repeated on each ask is recorded once.
     */
    private Write identityServiceRefused(Cluster before, Cluster seen, String why, Instant now) {
        String note = identityServiceNote(why);
        Cluster noted = seen.toBuilder().progress(seen.progress().identityServiceRefused(now)).build().readyWithNote(note, now);
        List<BiFunction<Cluster, Instant, ClusterEvent>> events = before.readyAt() == null ? List.of(ClusterEvent.ClusterReady::new)
                : before.state() != ClusterState.READY || !note.equals(before.message()) ? List.of(ClusterEvent.ClusterUpdated::new)
                : List.of();
        return outcome(before, noted, events, cadence.settled(), now);
    }

    /** The cluster's message while a refusal of Identity Service for GKE stands: GKE's reason, {@code why}, and what it means. */
    private static String identityServiceNote(String why) {
        String reason = why.strip();
        return "GKE refused to turn on Identity Service for GKE: " + reason + (reason.matches(".*[.!?]$") ? "" : ".") + " Signing in to this cluster with kubectl "
                + "(approving a sign-in code) cannot work until it is on; better-compute asks GKE again every hour. The cluster's "
                + "nodes and workloads are unaffected.";
    }

    /**
     * The provider refused to create {@code asked} with Identity Service for GKE on: nothing was created, and the next pass,
     * at once, creates it without (same provider-side name, so a crash between the two adopts). The note rides on the
     * cluster until it is first ready, which publishes it with {@code ready}; the hour to ask again by an update runs from now.
     */
    private Write createdWithoutIdentityService(Cluster asked, String why, Instant now) {
        Cluster noted = asked.toBuilder().state(ClusterState.PENDING).message(identityServiceNote(why))
                .progress(asked.progress().identityServiceRefused(now)).build();
        return outcome(asked, noted, List.of(), Duration.ZERO, now);
    }

    /** The change that turns Identity Service for GKE on. */
    private static boolean turnsOnIdentityService(ProviderAction action) {
        return action instanceof ProviderAction.ChangeCluster change && change.change() instanceof ClusterChange.IdentityService id
                && id.enabled();
    }

    /**
     * The call of {@code action} on {@code seen}: its intent (a retry of an error keeps showing the error until the
     * provider accepts, so a retry refused again changes nothing the tenant sees and publishes nothing), and what
     * either answer leaves.
     */
    private ClusterPlan call(Cluster stored, Cluster seen, ProviderAction action, Instant now) {
        Cluster asking;
        if (stored.state() == ClusterState.ERROR) {
            asking = seen.failed(stored.message());
        } else if (turnsOnIdentityService(action) && stored.state() == ClusterState.READY
                && stored.progress().identityServiceRefusedAt() != null) {
            // Asked again after a refusal: the cluster reads as it did (ready, with the note) until the provider accepts.
            asking = seen;
        } else if (action instanceof ProviderAction.CreateCluster || action instanceof ProviderAction.DeleteCluster
                || stored.state() == ClusterState.PENDING) {
            asking = seen;
        } else {
            asking = seen.converging();
        }
        Write intent = outcome(stored, asking.toBuilder().progress(asking.progress().intending(action.label())).build(),
                List.of(), cadence.converging(), now);
        Cluster asked = intent.row();
        return new Call(intent, action, outcome(asked, accepted(asked, action, now), List.of(), cadence.converging(), now),
                e -> refused(asked, action, e, now));
    }

    /** The provider accepted the call: what it is doing shows on the cluster and the pool it is about. */
    private static Cluster accepted(Cluster c, ProviderAction a, Instant now) {
        Cluster next = c;
        if (c.state() == ClusterState.ERROR || (c.state() == ClusterState.READY && turnsOnIdentityService(a))) {
            next = a instanceof ProviderAction.DeleteCluster ? c.deleting() : c.converging();
        }
        if (a instanceof ProviderAction.CreateCluster) {
            next = next.toBuilder().state(ClusterState.PROVISIONING).progress(next.progress().seenAtProvider(now, null)).build();
        } else if (a instanceof ProviderAction.CreateNodePool create) {
            String name = create.spec().name();
            if (next.nodePools().stream().anyMatch(p -> p.spec().name().equals(name) && p.state() != ClusterState.PROVISIONING)) {
                next = next.withPoolState(name, ClusterState.PROVISIONING, null, now);
            }
        } else if (a instanceof ProviderAction.ResizeNodePool || a instanceof ProviderAction.SetAutoscaling
                || a instanceof ProviderAction.SetLabelsAndTaints) {
            // A change in place: the pool reads updating until the provider has it (it may have drifted while ready).
            String name = a.pool();
            boolean settledPool = next.nodePools().stream().anyMatch(p -> p.spec().name().equals(name) && (p.state() == ClusterState.READY
                    || p.state() == ClusterState.ERROR));
            if (settledPool) {
                next = next.withPoolState(name, ClusterState.UPDATING, null, now);
            }
        }
        return next;
    }

    /** The provider refused the call: passing trouble is retried soon and quietly, a refusal shows as an error. */
    private Write refused(Cluster asked, ProviderAction action, ProviderException e, Instant now) {
        if (action instanceof ProviderAction.CreateCluster && e.kind() == ProviderException.Kind.IDENTITY_SERVICE_REFUSED) {
            return createdWithoutIdentityService(asked, e.getMessage(), now);
        }
        if (turnsOnIdentityService(action) && e.kind() != ProviderException.Kind.UNAVAILABLE && e.kind() != ProviderException.Kind.INTERNAL) {
            // Optional for the cluster's workloads: any refusal (an organization GKE does not offer it to, INVALID or
            // FAILED_PRECONDITION) leaves it ready, never error, and is not asked again every pass.
            return identityServiceRefused(asked, asked, e.getMessage(), now);
        }
        Cluster withFailure = asked.toBuilder().progress(asked.progress().failedAttempt()).build();
        if (e.kind() == ProviderException.Kind.UNAVAILABLE || e.kind() == ProviderException.Kind.FAILED_PRECONDITION
                || e.kind() == ProviderException.Kind.INTERNAL) {
            return outcome(asked, withFailure, List.of(), cadence.converging(), now);
        }
        Duration wait = action instanceof ProviderAction.DeleteCluster ? cadence.backoff(withFailure.progress().failures()) : cadence.settled();
        if (action.pool() != null && !(action instanceof ProviderAction.DeleteNodePool)) {
            // The pool the provider refused to change shows why, as its cluster does.
            withFailure = withFailure.withPoolState(action.pool(), ClusterState.ERROR, e.getMessage(), now);
        }
        Cluster failed = withFailure.failed(e.getMessage());
        return outcome(asked, failed, errorEvents(asked, failed), wait, now);
    }

    private ClusterPlan error(Cluster stored, Cluster seen, String message, Duration next, Instant now) {
        Cluster failed = seen.failed(message);
        return new Save(outcome(stored, failed, errorEvents(stored, failed), next, now));
    }

    /** {@code error} is published when the cluster becomes one, or its message changes. */
    private static List<BiFunction<Cluster, Instant, ClusterEvent>> errorEvents(Cluster before, Cluster failed) {
        return before.state() != ClusterState.ERROR || !Objects.equals(before.message(), failed.message())
                ? List.of(ClusterEvent.ClusterFailed::new) : List.of();
    }

    /**
     * The row to save after {@code before}: {@code after} with its revision bumped once if anything the API shows
     * changed, the time of the next look, and the events — the cluster's, then its node pools' moves.
     */
    private static Write outcome(Cluster before, Cluster after, List<BiFunction<Cluster, Instant, ClusterEvent>> clusterEvents,
                                   Duration next, Instant now) {
        Cluster timed = after.toBuilder().progress(after.progress().withNextAttemptAt(next == null ? null : now.plus(next))).build();
        Cluster row = revised(before, timed, now);
        List<KubernetesEvent> events = new ArrayList<>();
        clusterEvents.forEach(e -> events.add(e.apply(row, now)));
        events.addAll(NodePoolEvents.transitions(before, row, now));
        return new Write(row, events, next);
    }

    /** Copies what the provider reports: versions, endpoint, CA, node pool states; and that it exists there. */
    private static Cluster observed(Cluster c, ClusterObservation obs, Instant now) {
        List<NodePool> pools = new ArrayList<>();
        for (NodePool pool : c.nodePools()) {
            Optional<NodePoolObservation> o = obs.nodePool(pool.spec().name());
            ClusterState state = pool.state();
            if (o.isPresent() && pool.live()) {
                state = switch (o.get().status()) {
                    case RUNNING -> pool.state() == ClusterState.PENDING ? ClusterState.PROVISIONING : pool.state();
                    case PROVISIONING -> ClusterState.PROVISIONING;
                    case RECONCILING -> pool.state() == ClusterState.READY ? ClusterState.UPDATING : pool.state();
                    default -> pool.state();
                };
            }
            pools.add(state == pool.state() ? pool : pool.withState(state, null, now));
        }
        Cluster.Progress progress = c.progress().seenAtProvider(now, obs.caCertificate());
        return c.toBuilder().kubernetesVersion(obs.masterVersion()).nodeVersion(obs.nodeVersion()).endpoint(obs.endpoint())
                .nodePools(pools).progress(obs.identityService() ? progress.identityServiceOn() : progress).build();
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

    /**
     * The first thing the provider has otherwise than the tenant wants (or the platform needs: Identity Service on a
     * Standard cluster), in the order it must be fixed; null: nothing.
     */
    static ProviderAction firstDifference(Cluster c, ClusterObservation obs, Instant now) {
        if (c.mode() == ClusterMode.STANDARD) {
            for (NodePool pool : c.nodePools()) {
                if (pool.live() && obs.nodePool(pool.spec().name()).isEmpty()) {
                    return new ProviderAction.CreateNodePool(pool.spec());
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
                    if (change != null) {
                        return change;
                    }
                }
            }
        }
        if (!ProviderSpecs.versionMatches(c.requestedVersion(), obs.masterVersion())) {
            return new ProviderAction.ChangeCluster(new ClusterChange.MasterVersion(c.requestedVersion()));
        }
        if (obs.releaseChannel() != c.releaseChannel()) {
            return new ProviderAction.ChangeCluster(new ClusterChange.Channel(c.releaseChannel()));
        }
        if (!new HashSet<>(c.authorizedNetworks()).equals(new HashSet<>(obs.authorizedNetworks()))) {
            return new ProviderAction.ChangeCluster(new ClusterChange.AuthorizedNetworks(c.authorizedNetworks()));
        }
        Instant refused = c.progress().identityServiceRefusedAt();
        if (c.mode() == ClusterMode.STANDARD && !obs.identityService()
                && (refused == null || !now.isBefore(refused.plus(IDENTITY_SERVICE_ASKED_AGAIN)))) {
            // People sign in to a Standard cluster through it, so one created before the platform set it at creation,
            // or turned off at the provider, gets it back. GKE refuses it on Autopilot. Last: a refusal never holds up
            // the tenant's changes, and one standing is not asked again for a long while.
            return new ProviderAction.ChangeCluster(new ClusterChange.IdentityService(true));
        }
        return null;
    }

    /**
     * What differs between a pool as wanted and as the provider has it, in the order it is fixed: autoscaling
     * (set, changed or turned off), then the size (only without autoscaling: with it the provider sizes the
     * pool), then labels and taints; null: nothing. Machine type, disk, spot, accelerators and zones are fixed at creation.
     */
    static ProviderAction poolDifference(NodePool pool, NodePoolObservation o) {
        var wanted = pool.spec();
        if (!Objects.equals(wanted.autoscaling(), o.autoscaling())) {
            return new ProviderAction.SetAutoscaling(wanted.name(), wanted.autoscaling());
        }
        if (wanted.autoscaling() == null && wanted.nodeCount() != o.nodeCount()) {
            return new ProviderAction.ResizeNodePool(wanted.name(), wanted.nodeCount());
        }
        List<Taint> wantedTaints = valued(wanted.taints());
        List<Taint> seenTaints = valued(o.taints());
        if (!wanted.labels().equals(o.labels()) || !new HashSet<>(wantedTaints).equals(new HashSet<>(seenTaints))
                || wantedTaints.size() != seenTaints.size()) {
            return new ProviderAction.SetLabelsAndTaints(wanted.name(), wanted.labels(), wanted.taints());
        }
        return null;
    }

    /** A taint without a value and one with an empty value are the same taint on a node. */
    private static List<Taint> valued(List<Taint> taints) {
        return taints.stream().map(t -> t.value() == null ? new Taint(t.key(), "", t.effect()) : t).toList();
    }

    /** Why the last call did not take: the operation's error, else the cluster's status message, else {@code fallback}. */
    private static String providerMessage(OperationStatus status, ClusterObservation obs, String fallback) {
        if (status != null && status.error() != null && !status.error().isBlank()) {
            return status.error();
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
    static Cluster revised(Cluster before, Cluster after, Instant now) {
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
