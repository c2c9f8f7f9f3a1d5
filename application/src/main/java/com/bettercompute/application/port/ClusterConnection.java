package com.bettercompute.application.port;

import java.util.Objects;

/**
 * How the platform reaches one tenant cluster's Kubernetes API.
 *
 * @param endpointUrl          the API server's URL, {@code https://HOST[:PORT][/PATH]}
 * @param caCertificateBase64  the cluster CA, base64 of PEM, as the provider reports it
 * @param platformBearerToken  the platform's own credential for that API (on GKE an access token of the
 *                             provider account; on the simulator the simulated API's admin token).
 *                             A secret: never shown by {@link #toString()}
 */
public record ClusterConnection(String endpointUrl, String caCertificateBase64, String platformBearerToken) {
    public ClusterConnection {
        Objects.requireNonNull(endpointUrl, "endpointUrl");
        Objects.requireNonNull(caCertificateBase64, "caCertificateBase64");
        Objects.requireNonNull(platformBearerToken, "platformBearerToken");
    }

    @Override
    public String toString() {
        return "ClusterConnection[endpointUrl=" + endpointUrl + ", platformBearerToken=<redacted>]";
    }
}
