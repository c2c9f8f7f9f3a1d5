package com.bettercompute.application.port;

/** What {@link ClusterRepository#list} narrows to; null fields do not narrow. */
public record ClusterFilter(String tenantId, String poolId, String projectId, boolean includeDeleted) {}
