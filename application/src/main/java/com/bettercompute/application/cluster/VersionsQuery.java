package com.bettercompute.application.cluster;

/** The input of {@code versions}. */
public record VersionsQuery(String tenantId, String poolId, String location) {}
