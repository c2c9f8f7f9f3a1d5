package com.bettercompute.application.reconcile;

import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;

/** Our cluster in the provider's terms: where it lives there, and its control plane as wanted. */
public final class ProviderSpecs {
    private ProviderSpecs() {}

    /**
     * The cluster's place at the provider: its account's cloud project, its location, its provider-side
     * name. GKE runs Autopilot clusters only in regions, so an Autopilot cluster asked for in a zone runs
     * in that zone's region (its {@code location} still shows what the tenant asked).
     */
    public static ClusterLocator locator(Cluster c, ProviderAccount account) {
        String location = c.mode() == ClusterMode.AUTOPILOT ? c.region() : c.location();
        return new ClusterLocator(account.cloudProject(), location, c.providerName());
    }

    /**
     * The control plane as wanted. The provider-side VPC network is named by the catalog network's id,
     * the subnetwork by the subnet's name (docs/decisions/clusters.md). A Standard cluster asks for Identity Service for
     * GKE, unless the provider refused it for this cluster: then it is created without, and asked for later by an update.
     */
    static ClusterSpec cluster(Cluster c, ClusterLocator at) {
        return new ClusterSpec(at, c.id(), c.mode(), c.releaseChannel(), c.requestedVersion(),
                c.authorizedNetworks(), c.privateNodes(), c.networkId(), c.subnetName(),
                c.mode() == ClusterMode.STANDARD && c.progress().identityServiceRefusedAt() == null);
    }

    /**
     * Whether the version the provider runs is the one asked for: a minor ({@code 1.33}) is met by any
     * of its patches, a patch ({@code 1.33.4}) by any of its builds, a full version only by itself.
     */
    static boolean versionMatches(String requested, String running) {
        if (requested == null) {
            return true;
        }
        if (running == null) {
            return false;
        }
        if (running.equals(requested)) {
            return true;
        }
        String[] parts = requested.split("-", 2)[0].split("\\.");
        if (requested.contains("-")) {
            return false;
        }
        return parts.length == 2 ? running.startsWith(requested + ".") : running.startsWith(requested + "-");
    }
}
