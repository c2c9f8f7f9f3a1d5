package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ReleaseChannel;

import java.util.List;
import java.util.Objects;

/**
 * A cluster's control plane as we want it at the provider. Node pools are not part of it: they are
 * created one by one with {@link ClusterProvider#createNodePool} once the control plane runs.
 *
 * @param at                 project, location and provider-side name
 * @param clusterId          our cluster id, put on the cluster as the label {@link ProviderNames#CLUSTER_LABEL}
 * @param mode               standard or autopilot
 * @param releaseChannel     null: not enrolled (Autopilot always is: null means the provider's default there)
 * @param version            a pinned control-plane version ({@code 1.33} or a full version); null: the channel's default
 * @param authorizedNetworks IPv4 CIDRs allowed to reach the control plane; empty: any address
 * @param privateNodes       nodes without public addresses
 * @param network            the VPC network's name; null: the project's default
 * @param subnetwork         the subnetwork's name; null: the network's default
 * @param identityService    Identity Service for GKE on at creation (people's sign-in with the platform's ID tokens);
 *                           the provider has none for Autopilot
 */
public record ClusterSpec(
        ClusterLocator at,
        String clusterId,
        ClusterMode mode,
        ReleaseChannel releaseChannel,
        String version,
        List<String> authorizedNetworks,
        boolean privateNodes,
        String network,
        String subnetwork,
        boolean identityService) {

    /** With Identity Service for GKE on exactly for a Standard cluster, as the platform asks for it at creation. */
    public ClusterSpec(ClusterLocator at, String clusterId, ClusterMode mode, ReleaseChannel releaseChannel, String version,
                       List<String> authorizedNetworks, boolean privateNodes, String network, String subnetwork) {
        this(at, clusterId, mode, releaseChannel, version, authorizedNetworks, privateNodes, network, subnetwork,
                mode == ClusterMode.STANDARD);
    }

    public ClusterSpec {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(mode, "mode");
        authorizedNetworks = authorizedNetworks == null ? List.of() : List.copyOf(authorizedNetworks);
    }
}
