package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * The whole state of a {@link Market} as plain values, for a persistence adapter to store and
 * {@link Market#restore} to rebuild. Lists keep the market's orders (grant order, idle order, queue
 * order, notice order), which the tick depends on, so a restored market decides exactly as the
 * original would have.
 */
public record MarketSnapshot(MarketTimings timings, Instant lastTick, long sequence, long grantSequence,
                             List<PoolState> pools, List<TenantState> tenants, List<ClusterState> clusters,
                             List<RequestState> requests, List<GrantState> grants, List<String> idleOrder,
                             List<MarketEvent> betweenTicks) {

    /** A pool, its nodes, the ids of its gangs under notice (notice order) and of its draining nodes (drain order). */
    public record PoolState(PoolId id, int gpusPerNode, Money reserve, Money lastPrice, List<NodeState> nodes,
                            List<String> reclaimingIds, List<String> drainingIds) {
    }

    /**
     * A node; {@code lostGrant} is the grant health checks took it from, kept for when it comes back;
     * {@code drainingUntil} the end of its eviction grace, null when not draining.
     */
    public record NodeState(String id, boolean inService, String blockClusterId, int seatedGpus, GrantState lostGrant,
                            Instant drainingUntil, Instant blockReadyAt) {
    }

    /**
     * A tenant: its credits and what its closed ledger entries add up to ({@code settledMicros}). What its open
     * entries accrued is in its grants; the balance is credits minus both.
     */
    public record TenantState(String id, long creditsMicros, long settledMicros) {
    }

    /**
     * A cluster with its queue, its block waiting list (request ids in order), the replacements it is owed
     * whether packing onto its base load block is on and when its limit was last written.
     */
    public record ClusterState(String id, String tenantId, long maxGpus, Money limit, long usedGpus,
                               List<String> queueIds, List<String> blockWaitingIds, List<ReplacementClaim> claims,
                               boolean packing, Instant limitSetAt) {
    }

    /** An open request (not closed or revoked). */
    public record RequestState(String id, String jobId, int attempt, String clusterId, PoolId pool, int gpus, int nodes,
                               PriorityClass priority, long sequence, Instant createdAt, Money jobLimit,
                               RequestPhase phase, Reason reason, String message, List<String> grantIds,
                               Money lockedRate, Instant protectedUntil, long startLimit, Instant noticeDeadline,
                               boolean provisioned, String blockNodeId, long marketRate, boolean lockedInForce) {
    }

    /**
     * A grant still billing (live, idle, or ended and not yet billed to its end). {@code readyAt},
     * {@code holdUntil}, {@code protectedUntil} and {@code billedUntil} are null until the node is
     * ready; {@code carry} is what billing owes below one micro-dollar. Its billing cursor
     * ({@code billedUntil}, {@code entryAccrued}, {@code carry}) may be older than the snapshot's last tick
     * while its open entry ({@code entryFrom}, {@code entryRate}) has not changed since: restoring bills it on
     * to that tick at the entry's rate, as the ticks in between did.
     */
    public record GrantState(String id, String nodeId, PoolId pool, String clusterId, int gpus, Money lockedRate,
                             Instant grantedAt, Instant readyAt, Instant holdUntil, Instant protectedUntil,
                             boolean replacement,
                             String requestId, Instant idleSince, long marketRate, boolean lockedInForce,
                             Instant billedUntil, Instant endsAt, Instant entryFrom, long entryRate,
                             boolean entryLocked, long entryAccrued, long carry) {
    }
}
