package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
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

    public DeleteCluster(Transactions tx, ClusterRepository clusters, EventOutbox outbox, Authorizer authorizer, Clock clock) {
        this.tx = tx;
        this.clusters = clusters;
        this.outbox = outbox;
        this.lookup = new ClusterLookup(clusters, authorizer);
        this.clock = clock;
    }

    public Cluster delete(Caller caller, ClusterRef ref) {
        return GuardedWrite.retry(() -> {
            Cluster current = lookup.require(caller, ref, Action.DELETE);
            if (current.state() == ClusterState.DELETED || current.state() == ClusterState.DELETING) {
                return Optional.of(current);
            }
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            // A delete the provider refused (the cluster shows error) is tried again at once; it is the
            // same deletion, so it publishes nothing new.
            boolean retry = current.deleteRequested();
            Cluster deleting = current.startDeleting(now);
            Boolean saved = tx.inTransaction(() -> {
                if (!clusters.updateRequest(deleting, current.version())) {
                    return false;
                }
                if (!retry) {
                    outbox.append(new ClusterEvent.ClusterDeleting(deleting, now).stored());
                }
                return true;
            });
            return saved ? Optional.of(deleting) : Optional.<Cluster>empty();
        });
    }
}
