package com.bettercompute.bootstrap.market;

import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A job of the scenario and what happened to it. Jobs checkpoint: a reclaimed job resumes where it stopped. */
final class SimJob {
    final String id;
    final String clusterId;
    final String tenantId;
    final PoolId pool;
    final int gpus;
    final Duration duration;
    final Money limit;
    final String priority;
    final Instant arrival;
    Duration remaining;
    boolean running;
    Instant startedAt;
    Instant firstStart;
    Instant completedAt;
    Instant requeuedAt;
    int token;
    int reclaims;
    /** Waits after a requeue, from revocation to the next start. */
    final List<Duration> requeueWaits = new ArrayList<>();
    Money firstLockedRate;

    SimJob(String id, String clusterId, String tenantId, PoolId pool, int gpus, Duration duration, Money limit,
           String priority, Instant arrival) {
        this.id = id;
        this.clusterId = clusterId;
        this.tenantId = tenantId;
        this.pool = pool;
        this.gpus = gpus;
        this.duration = duration;
        this.limit = limit;
        this.priority = priority;
        this.arrival = arrival;
        this.remaining = duration;
    }
}
