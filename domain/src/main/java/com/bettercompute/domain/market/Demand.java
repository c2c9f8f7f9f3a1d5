package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.Map;

/** The market's demand: jobs file their requests, change their own limit price and priority class, and end. */
final class Demand {
    private final MarketState state;
    private final ChangeLog changes;
    private final ClusterQueues queues;
    private final GrantLifecycle lifecycle;

    Demand(MarketState state, ClusterQueues queues, GrantLifecycle lifecycle) {
        this.state = state;
        this.changes = state.changes;
        this.queues = queues;
        this.lifecycle = lifecycle;
    }

    /**
     * Files a job's request: whole nodes go to the cluster's queue and file with the market at once while the
     * max cluster size allows; a request under one node waits for the base load block.
     */
    MarketRequest file(JobDemand demand, Instant at) {
        ClusterBook c = state.clusterBook(demand.clusterId());
        PoolBook b = state.book(demand.pool());
        if (state.openByJob.containsKey(demand.jobId())) {
            throw new DomainException(ErrorCode.CONFLICT, "job " + demand.jobId() + " has an open request",
                    Map.of("jobId", demand.jobId()));
        }
        int perNode = b.pool.gpusPerNode();
        int nodeCount;
        if (demand.gpus() < perNode) {
            nodeCount = 0;
        } else if (demand.gpus() % perNode == 0) {
            nodeCount = demand.gpus() / perNode;
        } else {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a job larger than one node requests whole nodes: "
                    + demand.gpus() + " GPUs is not a multiple of " + perNode,
                    Map.of("reason", "JobSizeNotNodeAligned", "gpus", demand.gpus(), "gpusPerNode", perNode));
        }
        MarketRequest r = queues.enqueue(demand.jobId(), 1, c.cluster, demand.pool(), demand.gpus(), nodeCount,
                demand.priority(), at, demand.jobLimit());
        queues.admit(c, at, state.betweenTicks);
        return r;
    }

    void endJob(String jobId, Instant at) {
        lifecycle.close(state.openRequest(jobId), at);
    }

    /** Sets (or with null removes) a job's own limit price label; read at the next tick. */
    void setJobLimit(String jobId, Money limit) {
        LimitPriceWritePolicy.checkInRange(limit);
        MarketRequest r = state.openRequest(jobId);
        r.setJobLimit(limit);
        changes.touch(r);
        if (r.phase.filed()) {
            state.book(r.pool).jobLimitChanged(r);
        }
    }

    /** Changes an open request's priority class; a request already filed keeps its market position. */
    boolean setJobPriority(String jobId, PriorityClass priority) {
        MarketRequest r = state.openRequest(jobId);
        PriorityClass next = priority == null ? PriorityClass.NONE : priority;
        if (r.priority == next) {
            return false;
        }
        r.priority = next;
        changes.touch(r);
        return true;
    }
}
