package com.bettercompute.application.port;

import java.util.Optional;

/**
 * Where a market-managed cluster's API server reaches the platform's admission webhooks, and how the platform
 * knows a call is for that cluster: each cluster's webhook URLs carry a path token only that cluster's webhook
 * configurations hold (kube-apiserver presents no credential of its own to a webhook by default).
 */
public interface AdmissionEndpoints {
    /** The cluster's webhook URLs and the CA that signs the platform's serving certificate; empty when not served. */
    Optional<Webhooks> webhooks(String clusterId);

    /** Whether {@code token} is the one {@link #webhooks} puts in the cluster's URLs; compared in constant time. */
    boolean accepts(String clusterId, String token);

    /**
     * @param validateUrl the validating webhook's {@code clientConfig.url}
     * @param mutateUrl   the mutating webhook's {@code clientConfig.url}
     * @param caBundlePem the CA certificate (PEM) the API server trusts for these URLs, as {@code caBundle} takes it
     *                    once base64-encoded
     */
    record Webhooks(String validateUrl, String mutateUrl, String caBundlePem) {
        @Override
        public String toString() {
            // the URLs carry the cluster's path token: never in a log line
            return "Webhooks[<redacted>]";
        }
    }
}
