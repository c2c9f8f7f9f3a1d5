package com.bettercompute.application.port;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Signs the ID tokens the platform issues as the OpenID Connect provider of its clusters (docs/decisions/sign-in.md). The keys never leave the adapter but sealed into the {@link SigningKeyRepository} every
 * replica shares (docs/decisions/sessions-and-signing-keys.md): it makes them, rotates them as every replica
 * does, never logs them, and publishes the public half of every key whose tokens may still be alive.
 */
public interface IdTokenSigner {

    /**
     * What an ID token says, in the claims kube-apiserver's OIDC authenticator reads.
     *
     * @param issuer    {@code iss}: the platform's public base URL
     * @param subject   {@code sub}: the principal's id (the kube username is {@code nc:<sub>})
     * @param audience  {@code aud}: the cluster as its provider names it
     * @param groups    {@code groups}: {@code nc:view}, {@code nc:edit} or {@code nc:admin}
     */
    record IdToken(String issuer, String subject, String audience, List<String> groups, Instant issuedAt, Instant expiresAt) {
        public IdToken {
            Objects.requireNonNull(issuer, "issuer");
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(audience, "audience");
            groups = List.copyOf(groups);
        }
    }

    /** The compact serialization of the token, signed with the current key (RS256, its {@code kid} in the header). */
    String sign(IdToken token);
}
