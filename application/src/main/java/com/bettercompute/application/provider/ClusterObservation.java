package com.bettercompute.application.provider;

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
 * @param operationRunning an operation on this cluster or one of its pools is still running:
 *                         the provider refuses another change until it is done
 * @param operationError   the error of the latest finished operation on this cluster if it failed; null otherwise
 */
public record ClusterObservation(
        boolean exists,
        String clusterId,
        ClusterStatus status,
        String statusMessage,
        Mode mode,
        String endpoint,
        String caCertificate,
        String masterVersion,
        String nodeVersion,
        ReleaseChannel releaseChannel,
        List<String> authorizedNetworks,
        boolean privateNodes,
        List<NodePoolObservation> nodePools,
        boolean operationRunning,
        String operationError) {

    private static final ClusterObservation ABSENT =
            new ClusterObservation(false, null, null, null, null, null, null, null, null, null, List.of(), false, List.of(), false, null);

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

    /** Exists, runs, and nothing is in flight. */
    public boolean settled() {
        return exists && status == ClusterStatus.RUNNING && !operationRunning;
    }
}
