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
        MarketRequest open = state.openByJob.get(demand.jobId());
        MarketRequest r;
        if (open != null && queues.held(open)) {
            r = open;
            queues.release(r);
        } else {
            checkNoOpenRequest(demand);
            r = queues.enqueue(demand.jobId(), 1, c.cluster, demand.pool(), demand.gpus(), nodeCount(demand),
                    demand.priority(), at, demand.jobLimit());
        }
        queues.admit(c, at, state.betweenTicks);
        return r;
    }

    /** A job waiting in its cluster's own queue over the max cluster size: listed with the quota as its cause. */
    MarketRequest hold(JobDemand demand, Instant at) {
        ClusterBook c = state.clusterBook(demand.clusterId());
        checkNoOpenRequest(demand);
        return queues.hold(demand.jobId(), c.cluster, demand.pool(), demand.gpus(), nodeCount(demand), demand.priority(),
                at, demand.jobLimit(), state.betweenTicks);
    }

    private void checkNoOpenRequest(JobDemand demand) {
        if (state.openByJob.containsKey(demand.jobId())) {
            throw new DomainException(ErrorCode.CONFLICT, "job " + demand.jobId() + " has an open request",
                    Map.of("jobId", demand.jobId()));
        }
    }

    private int nodeCount(JobDemand demand) {
        int perNode = state.book(demand.pool()).pool.gpusPerNode();
        if (demand.gpus() < perNode) {
            return 0;
        }
        if (demand.gpus() % perNode == 0) {
            return demand.gpus() / perNode;
        }
        throw new DomainException(ErrorCode.INVALID_INPUT, "a job larger than one node requests whole nodes: "
                + demand.gpus() + " GPUs is not a multiple of " + perNode,
                Map.of("reason", "JobSizeNotNodeAligned", "gpus", demand.gpus(), "gpusPerNode", perNode));
    }

    boolean held(MarketRequest r) {
        return queues.held(r);
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
