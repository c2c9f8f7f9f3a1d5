package com.bettercompute.application.volume;

import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.SharedVolumeProvider;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeObservation;
import com.bettercompute.application.port.SharedVolumeProviders;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.domain.catalog.Locations;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.event.ClusterEvent;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeEvent;
import com.bettercompute.domain.volume.VolumeSizePolicy;
import com.bettercompute.domain.volume.VolumeState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The shared volume's part of a cluster's reconcile pass: the volume is made before the cluster, so a cluster whose
 * volume cannot be made is {@code error} with nothing left at the provider — no cluster, no half-made file share.
 *
 * <p>On a pool that provisions shared storage, a cluster not yet accepted by the provider gets its volume row (its id
 * derives from the cluster, so a replayed pass finds it). Until the volume is made, each pass is the volume's: at most
 * one provider call, its intent saved first. A file share the provider reports in error is deleted again before the
 * volume is called failed; the cluster then shows why, and is tried again (volume first) when the reconciler retries
 * the error. A cluster being deleted, or one without a volume, goes on at once.
 */
public final class ClusterVolumes {
    private static final Logger log = LoggerFactory.getLogger(ClusterVolumes.class);
    static final String CREATE = "create-volume";
    static final String CLEAN_UP = "delete-failed-volume";

    /** How the volume's part of the pass ended, when it was the whole pass. */
    public enum Kind { SAVED, ACCEPTED, REFUSED, UNOBSERVED, CONFLICT }

    /** The volume held the cluster's pass: what happened and when to look again. */
    public record Held(Kind kind, Duration next, int providerCalls) {}

    private final Transactions tx;
    private final ClusterRepository clusters;
    private final VolumeRepository volumes;
    private final EventOutbox outbox;
    private final SharedVolumeProviders providers;
    private final StorageSettings settings;
    private final Cadence cadence;
    private final VolumeWrites writes;

    public ClusterVolumes(Transactions tx, ClusterRepository clusters, VolumeRepository volumes, EventOutbox outbox,
                          SharedVolumeProviders providers, StorageSettings settings, Cadence cadence) {
        this.tx = tx;
        this.clusters = clusters;
        this.volumes = volumes;
        this.outbox = outbox;
        this.providers = providers;
        this.settings = settings;
        this.cadence = cadence;
        this.writes = new VolumeWrites(tx, volumes, outbox);
    }

    /** Empty: the cluster's own pass goes on now. Present: the volume took this pass. */
    public Optional<Held> beforeCluster(Cluster c, ProviderAccount account, Instant now) {
        if (c.deleteRequested()) {
            return Optional.empty();
        }
        Optional<SharedVolume> found = volumes.forCluster(c.id());
        if (found.isEmpty()) {
            if (c.progress().providerAcceptedAt() != null || !settings.provisions(c.poolId())) {
                return Optional.empty();
            }
            volumes.insert(newVolume(c, account, now));
            found = volumes.forCluster(c.id());
        }
        SharedVolume v = found.orElseThrow();
        if (v.state() == VolumeState.FAILED) {
            // the reconciler came back to the cluster's error: try the volume again
            SharedVolume again = v.withState(VolumeState.PENDING, null, now);
            if (!writes.save(v, again, List.of())) {
                return Optional.of(new Held(Kind.CONFLICT, Duration.ZERO, 0));
            }
            v = again;
        }
        if (v.state() != VolumeState.PENDING) {
            return Optional.empty();
        }
        return Optional.of(make(c, v, account, now));
    }

    static SharedVolume newVolume(Cluster c, ProviderAccount account, Instant now) {
        String id = Ids.volumeId(c.id());
        return SharedVolume.forCluster(id, c.tenantId(), c.id(), c.name(), c.providerAccountId(), c.region(), zone(c, account), Ids.volumeStorageName(id),
                VolumeSizePolicy.sizeGiB(c.createdAt()), now);
    }

    /**
     * The zone of the file share (a zonal tier): the cluster's zone, or for a regional cluster the zone of its CPU
     * worker, else the first of the account's zones in the region.
     */
    static String zone(Cluster c, ProviderAccount account) {
        if (c.locationType() == LocationType.ZONAL) {
            return c.location();
        }
        return c.nodePools().stream().filter(CpuWorker::is).map(NodePool::spec).flatMap(s -> s.zones().stream()).findFirst()
                .or(() -> account.zones().stream().filter(z -> c.region().equals(Locations.regionOfZone(z))).sorted().findFirst())
                .orElse(c.location());
    }

    static SharedVolumeProvider.VolumeLocator locator(SharedVolume v, ProviderAccount account) {
        return new SharedVolumeProvider.VolumeLocator(account.cloudProject(), v.location(), v.storageName());
    }

    private Held make(Cluster c, SharedVolume v, ProviderAccount account, Instant now) {
        SharedVolumeProvider provider = providers.forAccount(account);
        SharedVolumeProvider.VolumeLocator at = locator(v, account);
        VolumeObservation obs;
        try {
            obs = provider.observe(at);
        } catch (ProviderException e) {
            log.warn("volume {} of cluster {}: observing {} failed ({}): {}", v.id(), c.id(), at, e.kind(), e.getMessage());
            return wait(c, Kind.UNOBSERVED, 1, now);
        }
        if (obs.exists() && !v.id().equals(obs.volumeId())) {
            return fail(c, v, "A file share named " + at.name() + " exists in project " + at.project()
                    + " and was not created by better-compute; it is left alone.", 1, now);
        }
        String pending = v.progress().pendingAction();
        if (!obs.exists()) {
            if (CLEAN_UP.equals(pending)) {
                return fail(c, v, v.message(), 1, now);
            }
            if (CREATE.equals(pending) && v.progress().operation() != null) {
                OperationStatus status;
                try {
                    status = provider.operation(at, v.progress().operation());
                } catch (ProviderException e) {
                    return wait(c, Kind.UNOBSERVED, 2, now);
                }
                if (!status.done()) {
                    return wait(c, Kind.SAVED, 2, now);
                }
                if (status.error() != null) {
                    return fail(c, v, status.error(), 2, now);
                }
            }
            return create(c, v, provider, at, now, 1);
        }
        switch (obs.status()) {
            case READY: {
                SharedVolume attached = v.withState(VolumeState.ATTACHED, null, now)
                        .withProgress(v.progress().settled().next(now));
                if (!writes.save(v, attached, List.of(new VolumeEvent.VolumeCreated(attached, now),
                        new VolumeEvent.VolumeAttached(attached, now)))) {
                    return new Held(Kind.CONFLICT, Duration.ZERO, 1);
                }
                // the cluster's own pass, with its one provider call, comes next
                return new Held(Kind.SAVED, Duration.ZERO, 1);
            }
            case ERROR: {
                String why = obs.statusMessage() == null || obs.statusMessage().isBlank()
                        ? "The provider reports the file share in error." : obs.statusMessage();
                if (CLEAN_UP.equals(pending) && v.progress().operation() != null) {
                    return wait(c, Kind.SAVED, 1, now);
                }
                // nothing is left behind: the broken share goes before the volume is called failed
                VolumeWrites.Called called = writes.call(v, v.withState(v.state(), why, now), CLEAN_UP,
                        now.plus(cadence.converging()), p -> p.delete(at, v.id()), provider);
                return afterCall(c, called, now, 2);
            }
            default:
                return wait(c, Kind.SAVED, 1, now);
        }
    }

    private Held create(Cluster c, SharedVolume v, SharedVolumeProvider provider, SharedVolumeProvider.VolumeLocator at, Instant now,
                        int calls) {
        VolumeWrites.Called called = writes.call(v, CREATE, now.plus(cadence.converging()),
                p -> p.create(new SharedVolumeProvider.VolumeSpec(at, v.id(), v.tenantId(), v.sizeGiB())), provider);
        return afterCall(c, called, now, calls + 1);
    }

    private Held afterCall(Cluster c, VolumeWrites.Called called, Instant now, int calls) {
        if (called.saved() == null && called.refused() == null) {
            return new Held(Kind.CONFLICT, Duration.ZERO, calls);
        }
        if (called.refused() != null) {
            ProviderException e = called.refused();
            SharedVolume intent = called.saved();
            log.info("volume {}: the provider refused {} ({}): {}", intent.id(), intent.progress().pendingAction(), e.kind(), e.getMessage());
            if (VolumeWrites.passing(e)) {
                writes.save(intent, intent.withProgress(intent.progress().failedAttempt()), List.of());
                return wait(c, Kind.REFUSED, calls, now);
            }
            // the provider made nothing: the volume failed, and so does its cluster
            return fail(c, intent, e.getMessage(), calls, now);
        }
        return wait(c, Kind.ACCEPTED, calls, now);
    }

    /** The cluster waits for its volume: looked at again soon, nothing the API shows changes. */
    private Held wait(Cluster c, Kind kind, int calls, Instant now) {
        Duration next = cadence.converging();
        Cluster timed = c.toBuilder().progress(c.progress().withNextAttemptAt(now.plus(next))).build();
        if (!tx.inTransaction(() -> clusters.update(timed, c.version()))) {
            return new Held(Kind.CONFLICT, Duration.ZERO, calls);
        }
        return new Held(kind, next, calls);
    }

    /** The volume cannot be made and nothing of it is left: it is {@code failed}, and its cluster {@code error} with why. */
    private Held fail(Cluster c, SharedVolume v, String why, int calls, Instant now) {
        String message = "The cluster's shared volume could not be made: " + (why == null ? "the provider refused it." : why);
        SharedVolume failed = v.withState(VolumeState.FAILED, why, now).withProgress(v.progress().failedAttempt().next(null));
        Duration next = cadence.settled();
        Cluster erred = c.failed(message);
        boolean changed = c.state() != ClusterState.ERROR || !Objects.equals(c.message(), message);
        Cluster row = (changed ? erred.toBuilder().version(c.version() + 1).updatedAt(now) : erred.toBuilder())
                .progress(c.progress().withNextAttemptAt(now.plus(next))).build();
        boolean saved;
        try {
            saved = tx.inTransaction(() -> {
                if (!volumes.update(failed, v.version()) || !clusters.update(row, c.version())) {
                    throw new Conflict();
                }
                outbox.append(new VolumeEvent.VolumeFailed(failed, now).stored());
                if (changed) {
                    outbox.append(new ClusterEvent.ClusterFailed(row, now).stored());
                }
                return true;
            });
        } catch (Conflict e) {
            saved = false;
        }
        return saved ? new Held(Kind.SAVED, next, calls) : new Held(Kind.CONFLICT, Duration.ZERO, calls);
    }

    /** Rolls a transaction back when one of its guarded writes lost its race. */
    private static final class Conflict extends RuntimeException {
        Conflict() {
            super(null, null, false, false);
        }
    }
}
