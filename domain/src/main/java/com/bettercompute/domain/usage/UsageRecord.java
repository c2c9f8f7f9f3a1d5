package com.bettercompute.domain.usage;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One unit of billed usage: {@code kind} (such as {@code kubernetes.cluster.hours}) of a tenant's
 * cluster for the hour starting at {@code hourStart}.
 */
public record UsageRecord(String kind, String tenantId, String clusterId, Instant hourStart, BigDecimal quantity, Instant recordedAt) {
    public static final String CLUSTER_HOURS = "kubernetes.cluster.hours";
}
