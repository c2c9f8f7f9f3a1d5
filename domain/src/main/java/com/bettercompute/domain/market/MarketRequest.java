package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One request: a job's gang of whole nodes of one pool (or, under one node, a seat on its cluster's
 * base load block). A reclaimed job continues as a new request with the next attempt number.
 */
public final class MarketRequest {
    final String id;
    final String jobId;
    final int attempt;
    final TenantCluster cluster;
    final PoolId pool;
    final int gpus;
    /** Whole nodes of the gang; 0 for a sub-node request. */
    final int nodes;
    /** Kueue's priority class label, which the tenant may change while the job waits in its queue. */
    PriorityClass priority;
    final long sequence;
    final Instant createdAt;
    Money jobLimit;
    /** {@link #jobLimit} in micro-dollars, {@link EffectiveLimitPolicy#NONE} when absent. */
    long jobLimitMicros;
    RequestPhase phase;
    Reason reason = Reason.PENDING;
    String message = "";
    final List<NodeGrant> grants = new ArrayList<>();
    /** What its grants read of it: its id and the terms they bill at after the window. */
    final Gang gang;
    Money lockedRate;
    Instant protectedUntil;
    /** {@link #protectedUntil} in epoch nanoseconds, {@link Long#MIN_VALUE} when none (the tick's hot path). */
    long protectedUntilNanos = Long.MIN_VALUE;
    long startLimit;
    Instant noticeDeadline;
    boolean provisioned;
    Node blockNode;
    /**
     * When it left the market (closed or revoked), as the call that ended it was given: a revoked attempt ends at
     * the instant its successor was filed, never at the moment the change happens to be saved.
     */
    Instant endedAt;

    MarketRequest(String id, String jobId, int attempt, TenantCluster cluster, PoolId pool, int gpus, int nodes,
                  PriorityClass priority, long sequence, Instant createdAt, Money jobLimit) {
        this.id = id;
        this.jobId = jobId;
        this.attempt = attempt;
        this.cluster = cluster;
        this.pool = pool;
        this.gpus = gpus;
        this.nodes = nodes;
        this.priority = priority;
        this.sequence = sequence;
        this.createdAt = createdAt;
        this.gang = new Gang(id);
        setJobLimit(jobLimit);
    }

    /**
     * Sets the gang's protection window. With none, a gang that holds grants (it has a locked rate)
     * is provisioning: its window has not started, so it cannot have ended.
     */
    void window(Instant until) {
        protectedUntil = until;
        protectedUntilNanos = until != null ? ProtectionWindowPolicy.epochNanos(until)
                : lockedRate != null ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    void setJobLimit(Money limit) {
        this.jobLimit = limit;
        this.jobLimitMicros = limit == null ? EffectiveLimitPolicy.NONE : limit.micros();
    }

    public String id() {
        return id;
    }

    public String jobId() {
        return jobId;
    }

    public int attempt() {
        return attempt;
    }

    public String clusterId() {
        return cluster.id;
    }

    public String tenantId() {
        return cluster.tenant.id;
    }

    public PoolId pool() {
        return pool;
    }

    public int gpus() {
        return gpus;
    }

    public int nodes() {
        return nodes;
    }

    public boolean subNode() {
        return nodes == 0;
    }

    public PriorityClass priority() {
        return priority;
    }

    public Instant createdAt() {
        return createdAt;
    }

    /** The job's own limit, null when it uses its cluster's. */
    public Money jobLimit() {
        return jobLimit;
    }

    /** The limit in force now: the job's, else the cluster's, else zero. */
    public Money effectiveLimit() {
        return Money.ofMicros(EffectiveLimitPolicy.limit(jobLimit, cluster.limit));
    }

    public RequestPhase phase() {
        return phase;
    }

    public Reason reason() {
        return reason;
    }

    public String message() {
        return message;
    }

    public int grantedNodes() {
        return grants.size();
    }

    /** Granted nodes that are ready in the cluster. */
    public int readyNodes() {
        int ready = 0;
        for (NodeGrant g : grants) {
            if (g.readyAt != null) {
                ready++;
            }
        }
        return ready;
    }

    public List<String> grantedNodeIds() {
        List<String> ids = new ArrayList<>(grants.size());
        for (NodeGrant g : grants) {
            ids.add(g.nodeId);
        }
        return ids;
    }

    /** The gang's locked rate, null before its first grant. */
    public Money lockedRate() {
        return lockedRate;
    }

    public Instant protectedUntil() {
        return protectedUntil;
    }

    public Money startLimit() {
        return Money.ofMicros(startLimit);
    }

    /** The notice deadline while the gang is reclaimed with notice, else null. */
    public Instant noticeDeadline() {
        return noticeDeadline;
    }

    public boolean provisioned() {
        return provisioned;
    }

    public String blockNodeId() {
        return blockNode == null ? null : blockNode.id;
    }
}
