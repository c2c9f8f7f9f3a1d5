package com.bettercompute.application.port;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The sign-in grants of the device authorization flow (RFC 8628) and the refresh tokens they lead to.
 * Only hashes are stored: a device code, user code or refresh token is a secret, and the SHA-256 of it
 * is all that is needed to find its row again. Every write is committed before it returns (or joins the
 * caller's transaction), so an acknowledged approval or refresh survives a crash.
 */
public interface SignInRepository {

    /** Where a device grant stands. */
    enum Decision { PENDING, APPROVED, DENIED }

    /**
     * A device grant.
     *
     * @param principalId who approved or denied it; null while pending
     * @param lastPolledAt the last time the client polled with it; null before the first poll
     */
    record DeviceGrant(String deviceCodeHash, String userCodeHash, String clusterId, Instant createdAt, Instant expiresAt,
                       int intervalSeconds, Instant lastPolledAt, Decision decision, String principalId) {
        public DeviceGrant {
            Objects.requireNonNull(deviceCodeHash, "deviceCodeHash");
            Objects.requireNonNull(userCodeHash, "userCodeHash");
            Objects.requireNonNull(clusterId, "clusterId");
            Objects.requireNonNull(decision, "decision");
        }
    }

    /** A refresh token's grant: who, for which cluster, and when it was last used (or issued). */
    record RefreshGrant(String tokenHash, String principalId, String clusterId, Instant lastUsedAt) {
        public RefreshGrant {
            Objects.requireNonNull(tokenHash, "tokenHash");
            Objects.requireNonNull(principalId, "principalId");
            Objects.requireNonNull(clusterId, "clusterId");
            Objects.requireNonNull(lastUsedAt, "lastUsedAt");
        }
    }

    void addDevice(DeviceGrant grant);

    Optional<DeviceGrant> deviceByCode(String deviceCodeHash);

    Optional<DeviceGrant> deviceByUserCode(String userCodeHash);

    /** Records the poll and the interval the client must keep from now on. */
    void polled(String deviceCodeHash, Instant at, int intervalSeconds);

    /** Approves or denies a pending grant; false when it is no longer pending (or gone). */
    boolean decide(String deviceCodeHash, Decision decision, String principalId);

    /** Removes the grant; true only for the one call that removed it, so a code is redeemed once. */
    boolean removeDevice(String deviceCodeHash);

    void addRefresh(RefreshGrant grant);

    Optional<RefreshGrant> refreshByHash(String tokenHash);

    /** Removes the refresh token; true only for the one call that removed it, so a token is used once. */
    boolean removeRefresh(String tokenHash);

    /** Removes device grants expired and refresh grants unused since before {@code before}; how many. */
    int removeStale(Instant devicesExpiredBefore, Instant refreshUnusedSince);
}
