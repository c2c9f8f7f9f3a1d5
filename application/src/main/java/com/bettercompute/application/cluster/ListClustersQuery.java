package com.bettercompute.application.cluster;

/** The input of {@code list}. */
public record ListClustersQuery(String tenantId, String poolId, String projectId, boolean includeDeleted) {}
