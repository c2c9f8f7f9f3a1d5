package com.bettercompute.domain.catalog;

/** A tenant and its cap on clusters that are not deleted. */
public record Tenant(String id, int maxClusters) {
    public static final int DEFAULT_MAX_CLUSTERS = 10;
}
