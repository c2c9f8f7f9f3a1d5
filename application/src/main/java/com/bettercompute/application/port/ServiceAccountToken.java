package com.bettercompute.application.port;

import java.time.Instant;
import java.util.Objects;

/**
 * A token a tenant cluster minted for one of its service accounts.
 *
 * @param token     the bearer token: a secret, never stored, logged, published or shown by {@link #toString()}
 * @param expiresAt when the cluster says it expires (it may shorten what was asked for)
 */
public record ServiceAccountToken(String token, Instant expiresAt) {
    public ServiceAccountToken {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    @Override
    public String toString() {
        return "ServiceAccountToken[token=<redacted>, expiresAt=" + expiresAt + "]";
    }
}
