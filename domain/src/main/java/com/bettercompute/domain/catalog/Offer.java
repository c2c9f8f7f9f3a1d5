package com.bettercompute.domain.catalog;

import java.util.List;

/** A pool offered to a tenant: active or suspended, with regions the tenant may not use. */
public record Offer(String poolId, String tenantId, boolean active, List<String> excludedRegions) {
    public Offer {
        excludedRegions = List.copyOf(excludedRegions);
    }
}
