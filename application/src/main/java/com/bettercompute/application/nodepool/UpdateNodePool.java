package com.bettercompute.application.nodepool;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.cluster.GuardedWrite;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * {@code kubernetesNodePools.update}: records the new size, autoscaling, labels or taints and bumps the
 * pool's {@code version} (and its cluster's). A {@code ready} or failed pool whose spec changed goes
 * {@code updating}, and so does its cluster; the reconciler applies the change in place at the provider
 * and publishes {@code kubernetes.nodepool.updated} once it is there. A pool not at the provider yet keeps
 * its state: it will be created with the new values.
 */
public final class UpdateNodePool {
    private final Transactions tx;
    private final ClusterRepository clusters;
    private final ClusterLookup lookup;
    private final Clock clock;

    public UpdateNodePool(Transactions tx, ClusterRepository clusters, Authorizer authorizer, Clock clock) {
        this.tx = tx;
        this.clusters = clusters;
        this.lookup = new ClusterLookup(clusters, authorizer);
        this.clock = clock;
    }

    public NodePool update(Caller caller, UpdateNodePoolCommand cmd) {
        return GuardedWrite.retry(() -> {
            Cluster current = lookup.require(caller, cmd.ref().cluster(), Action.UPDATE);
            NodePool pool = NodePools.find(current, cmd.ref().nodePoolId());
            if (CpuWorker.is(pool)) {
                throw CpuWorker.refused(pool, "resized or changed");
            }
            if (current.goingAway()) {
                throw NodePools.beingDeleted(current);
            }
            if (!pool.live()) {
                throw new DomainException(ErrorCode.INVALID_STATE,
                        "Node pool " + pool.id() + " is being deleted and cannot be changed.",
                        Map.of("state", pool.state().wire(), "reason", "node-pool-deleting"));
            }
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            NodePoolSpec spec = apply(pool.spec(), cmd);
            boolean changes = !spec.equals(pool.spec());
            ClusterState state = changes && (pool.state() == ClusterState.READY || pool.state() == ClusterState.ERROR)
                    ? ClusterState.UPDATING : pool.state();
            NodePool changed = pool.withSpec(spec, state, state == pool.state() ? pool.message() : null, now);
            Cluster next = current.withPoolChanged(changed, changes, now);
            return tx.inTransaction(() -> clusters.updateRequest(next, current.version())) ? Optional.of(changed) : Optional.<NodePool>empty();
        });
    }

    static NodePoolSpec apply(NodePoolSpec s, UpdateNodePoolCommand cmd) {
        return new NodePoolSpec(s.name(), s.machineType(),
                cmd.nodeCount() != null ? cmd.nodeCount() : s.nodeCount(),
                cmd.autoscalingGiven() ? cmd.autoscaling() : s.autoscaling(),
                s.diskGiB(), s.diskType(), s.spot(), s.accelerators(), s.zones(),
                cmd.labels() != null ? cmd.labels() : s.labels(),
                cmd.taints() != null ? cmd.taints() : s.taints());
    }
}
