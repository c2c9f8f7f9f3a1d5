package com.bettercompute.application.cluster;

/** The input of {@code get} and {@code delete}: a tenant and one of its clusters. */
public record ClusterRef(String tenantId, String clusterId) {}
