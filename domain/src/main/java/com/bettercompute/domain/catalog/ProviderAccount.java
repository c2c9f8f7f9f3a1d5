package com.bettercompute.domain.catalog;

import java.util.List;
import java.util.TreeSet;

/**
 * An account at a provider: the platform's ({@code owner} is {@value #PLATFORM}) or a tenant's own
 * ({@code owner} is the tenant id). Clusters on its pools live in its {@code cloudProject}, in the zones
 * it is configured with.
 */
public record ProviderAccount(String id, String providerId, String owner, String cloudProject, List<String> zones) {
    public static final String PLATFORM = "platform";

    public ProviderAccount {
        zones = List.copyOf(zones);
    }

    public boolean ownedBy(String tenantId) {
        return owner.equals(tenantId);
    }

    /** The regions of the configured zones, sorted. */
    public List<String> regions() {
        TreeSet<String> regions = new TreeSet<>();
        for (String zone : zones) {
            regions.add(Locations.regionOfZone(zone));
        }
        return List.copyOf(regions);
    }
}
