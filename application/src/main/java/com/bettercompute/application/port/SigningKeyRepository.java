package com.bettercompute.application.port;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The keys that sign the platform's ID tokens, shared by every replica on the database, so a token one
 * replica signed verifies against the keys any replica publishes, and a restart signs with the same key.
 * Each rotation adds a key of the next {@code generation}; which key signs and which are still published
 * follows from the keys' times (the sign-in's {@code SigningKeySchedule}), so every replica reads the same
 * answer from the same rows.
 *
 * <p>A key's private half is a secret: the adapter keeps it encrypted at rest with a key-encryption key of
 * its configuration, never logs it, and never puts it in an exception's message.
 */
public interface SigningKeyRepository {

    /**
     * One signing key.
     *
     * @param generation its place in the rotation: 1 for the first key, one more for each rotation
     * @param kid        its key id, as the JWKS and each token's header name it
     * @param privateJwk the key pair as a JSON Web Key (RFC 7517) with its private members: a secret
     * @param createdAt  when it was made: it is published from then on
     * @param signsFrom  when it starts signing (after being published long enough for verifiers to have it)
     */
    record SigningKey(long generation, String kid, String privateJwk, Instant createdAt, Instant signsFrom) {
        public SigningKey {
            if (generation < 1) {
                throw new IllegalArgumentException("generation must be 1 or more");
            }
            Objects.requireNonNull(kid, "kid");
            Objects.requireNonNull(privateJwk, "privateJwk");
            Objects.requireNonNull(createdAt, "createdAt");
            Objects.requireNonNull(signsFrom, "signsFrom");
        }

        @Override
        public String toString() {
            return "SigningKey[generation=" + generation + ", kid=" + kid + ", createdAt=" + createdAt + ", signsFrom=" + signsFrom + "]";
        }
    }

    /**
     * The keys kept by this replica's key-encryption key cannot be opened: they were sealed with another one.
     * A replica that meets this must not start (it would make keys no other replica can read); the message
     * names the key-encryption keys by their ids only.
     */
    final class SealedWithAnotherKey extends RuntimeException {
        public SealedWithAnotherKey(String message) {
            super(message);
        }
    }

    /**
     * Every kept key, oldest generation first.
     *
     * @throws SealedWithAnotherKey when a key was sealed with another key-encryption key than this adapter's
     */
    List<SigningKey> all();

    /**
     * Keeps a new key unless its generation is already kept. Returns true when this call added it, false when
     * another replica's key holds that generation (nothing is written: read the keys again and use that one).
     */
    boolean add(SigningKey key);

    /** Removes the keys of generations below {@code generation} (retired keys); how many. Idempotent. */
    int removeBefore(long generation);

    /**
     * A number that changes whenever a key is added, by any replica: keys read under an earlier number may be
     * out of date. A write by this process moves it once committed; another replica's may reach it a few
     * milliseconds after its commit (the adapter says how). Cheap: no key is read or opened.
     */
    long version();
}
