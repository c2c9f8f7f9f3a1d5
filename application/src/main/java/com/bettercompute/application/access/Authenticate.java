package com.bettercompute.application.access;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Ids;

/** Finds the principal an API token names. Tokens are compared by their SHA-256 only. */
public final class Authenticate {
    private final AccessRepository access;

    public Authenticate(AccessRepository access) {
        this.access = access;
    }

    /** The caller for a bearer token; {@code UNAUTHENTICATED} when there is none or it names nobody. */
    public Caller byToken(String bearerToken) {
        if (bearerToken == null || bearerToken.isBlank() || bearerToken.length() > 4096) {
            throw new DomainException(ErrorCode.UNAUTHENTICATED, "An API token is required: send Authorization: Bearer <token>.");
        }
        return access.principalByTokenHash(Ids.sha256Hex(bearerToken))
                .map(Caller::new)
                .orElseThrow(() -> new DomainException(ErrorCode.UNAUTHENTICATED, "The API token is not valid."));
    }

    /**
     * The caller of a console session opened with a token of that SHA-256, marked {@code viaSession}; asked
     * on every request, so a token taken away ends its sessions too. {@code UNAUTHENTICATED} when it names nobody.
     */
    public Caller bySession(String tokenSha256) {
        return access.principalByTokenHash(tokenSha256)
                .map(p -> new Caller(p, true))
                .orElseThrow(() -> new DomainException(ErrorCode.UNAUTHENTICATED, "The session has ended; sign in again."));
    }
}
