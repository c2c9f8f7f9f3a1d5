package com.bettercompute.application.nodepool;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.cluster.GuardedWrite;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.event.NodePoolEvent;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * {@code kubernetesNodePools.delete}: marks the pool {@code deleting} (its cluster {@code updating}) and
 * publishes {@code kubernetes.nodepool.deleting}; the reconciler deletes it at the provider and then marks it
 * {@code deleted}, kept in the cluster's list for the record. A pool already being deleted (or deleted) is
 * returned unchanged. The last pool of a Standard cluster that is not being deleted cannot go
 * ({@code INVALID_STATE}): a cluster needs somewhere to run; delete the cluster instead.
 */
public final class DeleteNodePool {
    private final Transactions tx;
    private final ClusterRepository clusters;
    private final EventOutbox outbox;
    private final ClusterLookup lookup;
    private final Clock clock;

    public DeleteNodePool(Transactions tx, ClusterRepository clusters, EventOutbox outbox, Authorizer authorizer, Clock clock) {
        this.tx = tx;
        this.clusters = clusters;
        this.outbox = outbox;
        this.lookup = new ClusterLookup(clusters, authorizer);
        this.clock = clock;
    }

    public NodePool delete(Caller caller, NodePoolRef ref) {
        return GuardedWrite.retry(() -> {
            Cluster current = lookup.require(caller, ref.cluster(), Action.UPDATE);
            NodePool pool = NodePools.find(current, ref.nodePoolId());
            if (!pool.live()) {
                return Optional.of(pool);
            }
            if (current.goingAway()) {
                throw NodePools.beingDeleted(current);
            }
            if (CpuWorker.is(pool)) {
                throw CpuWorker.refused(pool, "deleted");
            }
            long live = current.nodePools().stream().filter(p -> p.live() && !CpuWorker.is(p)).count();
            if (current.mode() == ClusterMode.STANDARD && live <= 1) {
                throw new DomainException(ErrorCode.INVALID_STATE,
                        "Node pool " + pool.id() + " is the last node pool of cluster " + current.id()
                                + "; a Standard cluster needs one to run. Add another first, or delete the cluster.",
                        Map.of("reason", "last-node-pool", "clusterId", current.id()));
            }
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            NodePool deleting = pool.withState(ClusterState.DELETING, null, now);
            Cluster next = current.withPoolChanged(deleting, true, now);
            Boolean saved = tx.inTransaction(() -> {
                if (!clusters.updateRequest(next, current.version())) {
                    return false;
                }
                outbox.append(new NodePoolEvent.NodePoolDeleting(next, deleting, now).stored());
                return true;
            });
            return saved ? Optional.of(deleting) : Optional.<NodePool>empty();
        });
    }
}
