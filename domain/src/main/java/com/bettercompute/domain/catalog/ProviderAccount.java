package com.bettercompute.domain.catalog;

import java.util.List;
import java.util.TreeSet;

/**
 * An account at a provider: the platform's ({@code owner} is {@value #PLATFORM}) or a tenant's own
 * ({@code owner} is the tenant id). Clusters on its pools live in its {@code cloudProject}, in the zones
 * it is configured with. {@code credentialsFile}, when set, is the path of the account's own credentials
 * (a service-account key the operator keeps on the server); null: the provider's default credentials.
 */
public record ProviderAccount(String id, String providerId, String owner, String cloudProject, List<String> zones,
                              String credentialsFile) {
    public static final String PLATFORM = "platform";

    public ProviderAccount {
        zones = List.copyOf(zones);
    }

    /** An account that uses the provider's default credentials (application-default credentials on GKE). */
    public ProviderAccount(String id, String providerId, String owner, String cloudProject, List<String> zones) {
        this(id, providerId, owner, cloudProject, zones, null);
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
