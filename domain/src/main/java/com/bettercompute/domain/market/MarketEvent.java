package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * The market's decisions, as past-tense facts carrying the tick's time. The in-cluster adapter turns
 * them into Kueue and node effects (conditions, events, cordons, evictions); the simulator counts them.
 */
public sealed interface MarketEvent {
    Instant at();

    /** A request's reason changed (one event per change, like the Job's Events). */
    record ReasonChanged(Instant at, String requestId, String jobId, String clusterId, Reason reason,
                         String message) implements MarketEvent {
    }

    /** A node joined a gang, at a locked rate. {@code replacement} when it honours an owed claim. */
    record NodeGranted(Instant at, String requestId, String jobId, String clusterId, PoolId pool, String nodeId,
                       String grantId, Money lockedRate, Instant protectedUntil, boolean replacement)
            implements MarketEvent {
    }

    /** Every node of the gang is granted: Provisioned=True. */
    record GangProvisioned(Instant at, String requestId, String jobId, String clusterId, PoolId pool, int nodes,
                           Money lockedRate) implements MarketEvent {
    }

    /** Reclaim with notice: PreemptionNotice=True (MarketPreemption), nodes cordoned, pods evicted with the window. */
    record PreemptionNoticed(Instant at, String requestId, String jobId, String clusterId, PoolId pool,
                             Instant deadline, List<String> nodeIds, Money price) implements MarketEvent {
    }

    /** Reclaim at once (its own side): final, nodes drained now with the 60-second eviction grace. */
    record GangReclaimedAtOnce(Instant at, String requestId, String jobId, String clusterId, PoolId pool,
                               ReclaimCause cause, List<String> nodeIds) implements MarketEvent {
    }

    /** A notice withdrawn: PreemptionNotice=False (Rescinded), nodes uncordoned. */
    record ReclaimRescinded(Instant at, String requestId, String jobId, String clusterId, List<String> nodeIds)
            implements MarketEvent {
    }

    /** Failed=True (MarketRevoked); the job requeues as {@code requeuedAs}. */
    record GangRevoked(Instant at, String requestId, String jobId, String clusterId, String requeuedAs)
            implements MarketEvent {
    }

    /**
     * A node left its cluster (idle grace over, or reclaimed): back in supply at once, or after the
     * eviction grace when its gang was reclaimed at once or revoked while its pods ran.
     */
    record NodeReleased(Instant at, String nodeId, String clusterId, PoolId pool) implements MarketEvent {
    }

    /** A sub-node request was seated on a block node. */
    record BlockSeated(Instant at, String requestId, String jobId, String clusterId, String nodeId, int gpus)
            implements MarketEvent {
    }

    /** A request filed with the market (it left its cluster's queue). */
    record RequestFiled(Instant at, String requestId, String jobId, String clusterId, PoolId pool, int gpus)
            implements MarketEvent {
    }
}
