package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ReleaseChannel;

import java.util.List;
import java.util.Optional;

/**
 * A cluster as the provider reports it now.
 *
 * @param exists           false: there is no cluster of that name (every other field is empty)
 * @param clusterId        the value of our label {@link ProviderNames#CLUSTER_LABEL}; null: the
 *                         cluster is not ours (see {@link ClusterProvider#observe})
 * @param status           the provider's status
 * @param statusMessage    the provider's message about the status (e.g. why it is in error); null if none
 * @param endpoint         the control plane's address, no scheme: an IP on GKE, {@code HOST:PORT/PATH} on the
 *                         simulator (whose clusters share one server); {@code https://} + it is the API's URL.
 *                         Null until known
 * @param caCertificate    the cluster CA, base64 of PEM as the provider gives it; null until known
 * @param masterVersion    the control plane's version
 * @param nodeVersion      the oldest node version (for Autopilot, the provider's)
 * @param releaseChannel   null: not enrolled in a channel
 * @param nodePools        every node pool the provider has, ours or not (the temporary
 *                         {@link ClusterProvider#INITIAL_NODE_POOL} included)
 * @param identityService  the provider's Identity Service for GKE is on: the cluster takes people's sign-in by the
 *                         platform's ID tokens (always off on Autopilot, where GKE offers none)
 *
 * <p>No operation is part of it: the cluster's and its pools' statuses show work in flight ({@link #busy()}),
 * and the reconciler asks for its own operation only when it needs to know how that ended
 * ({@link ClusterProvider#operation}) — one call, where listing a location's operations reads thousands.
 */
public record ClusterObservation(
        boolean exists,
        String clusterId,
        ClusterStatus status,
        String statusMessage,
        ClusterMode mode,
        String endpoint,
        String caCertificate,
        String masterVersion,
        String nodeVersion,
        ReleaseChannel releaseChannel,
        List<String> authorizedNetworks,
        boolean privateNodes,
        List<NodePoolObservation> nodePools,
        boolean identityService) {

    private static final ClusterObservation ABSENT =
            new ClusterObservation(false, null, null, null, null, null, null, null, null, null, List.of(), false, List.of(), false);

    public ClusterObservation {
        authorizedNetworks = authorizedNetworks == null ? List.of() : List.copyOf(authorizedNetworks);
        nodePools = nodePools == null ? List.of() : List.copyOf(nodePools);
    }

    /** No cluster of that name at the provider. */
    public static ClusterObservation absent() {
        return ABSENT;
    }

    public Optional<NodePoolObservation> nodePool(String name) {
        return nodePools.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * The provider is working on the cluster or one of its pools (creating, changing, deleting): it refuses
     * another change until that is done.
     */
    public boolean busy() {
        return exists && (status == ClusterStatus.PROVISIONING || status == ClusterStatus.RECONCILING || status == ClusterStatus.STOPPING
                || nodePools.stream().anyMatch(p -> p.status() == NodePoolStatus.PROVISIONING
                        || p.status() == NodePoolStatus.RECONCILING || p.status() == NodePoolStatus.STOPPING));
    }

    /** Exists, runs, and nothing is in flight. */
    public boolean settled() {
        return exists && status == ClusterStatus.RUNNING && !busy();
    }
}
