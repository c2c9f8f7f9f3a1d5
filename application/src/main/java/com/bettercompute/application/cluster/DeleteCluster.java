package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeState;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.event.ClusterEvent;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * {@code kubernetesClusters.delete}: marks the cluster and its node pools {@code deleting} and publishes
 * {@code kubernetes.cluster.deleting}. A cluster already being deleted (or deleted) is returned unchanged;
 * one whose deletion the provider refused ({@code error}) is marked {@code deleting} again and tried at once.
 */
public final class DeleteCluster {
    private final Transactions tx;
    private final ClusterRepository clusters;
    private final EventOutbox outbox;
    private final ClusterLookup lookup;
    private final Clock clock;
    /** The clusters' shared volumes; null: none. */
    private final VolumeRepository volumes;

    public DeleteCluster(Transactions tx, ClusterRepository clusters, EventOutbox outbox, Authorizer authorizer, Clock clock) {
        this(tx, clusters, outbox, authorizer, clock, null);
    }

    public DeleteCluster(Transactions tx, ClusterRepository clusters, EventOutbox outbox, Authorizer authorizer, Clock clock,
                         VolumeRepository volumes) {
        this.volumes = volumes;
        this.tx = tx;
        this.clusters = clusters;
        this.outbox = outbox;
        this.lookup = new ClusterLookup(clusters, authorizer);
        this.clock = clock;
    }

    public Cluster delete(Caller caller, ClusterRef ref) {
        return delete(caller, ref, false);
    }

    /**
     * As {@link #delete(Caller, ClusterRef)}; with {@code deleteVolume} the cluster's shared volume goes with it (unless a
     * node still holds it then: it is preserved). Without it the volume is preserved. The opt-in is recorded on the
     * volume in the same transaction, also when the cluster is being deleted already, as long as its fate is not decided.
     */
    public Cluster delete(Caller caller, ClusterRef ref, boolean deleteVolume) {
        return GuardedWrite.retry(() -> {
            Cluster current = lookup.require(caller, ref, Action.DELETE);
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            Optional<SharedVolume> choice = volumeChoice(current, deleteVolume, now);
            if (current.state() == ClusterState.DELETED || current.state() == ClusterState.DELETING) {
                if (choice.isEmpty()) {
                    return Optional.of(current);
                }
                return tx.inTransaction(() -> volumes.update(choice.get(), choice.get().version() - 1))
                        ? Optional.of(current) : Optional.<Cluster>empty();
            }
            // A delete the provider refused (the cluster shows error) is tried again at once; it is the
            // same deletion, so it publishes nothing new.
            boolean retry = current.deleteRequested();
            Cluster deleting = current.startDeleting(now);
            boolean saved;
            try {
                saved = tx.inTransaction(() -> {
                    if (!clusters.updateRequest(deleting, current.version())) {
                        return false;
                    }
                    if (choice.isPresent() && !volumes.update(choice.get(), choice.get().version() - 1)) {
                        throw new LostRace();
                    }
                    if (!retry) {
                        outbox.append(new ClusterEvent.ClusterDeleting(deleting, now).stored());
                    }
                    return true;
                });
            } catch (LostRace e) {
                saved = false;
            }
            return saved ? Optional.of(deleting) : Optional.<Cluster>empty();
        });
    }

    /**
     * The cluster's volume with this call's choice recorded, when it has a volume whose fate is still open and the choice
     * differs from the one recorded (the latest delete's choice counts until the cluster is gone); empty otherwise.
     */
    private Optional<SharedVolume> volumeChoice(Cluster c, boolean deleteVolume, Instant now) {
        if (volumes == null) {
            return Optional.empty();
        }
        return volumes.forCluster(c.id())
                .filter(v -> v.state() == VolumeState.ATTACHED || v.state() == VolumeState.PENDING || v.state() == VolumeState.FAILED)
                .filter(v -> v.deleteWithCluster() != deleteVolume)
                .map(v -> v.withDeleteWithCluster(deleteVolume, now));
    }

    /** Rolls the delete's transaction back when the volume changed under it; the delete is then tried afresh. */
    private static final class LostRace extends RuntimeException {
        LostRace() {
            super(null, null, false, false);
        }
    }
}
