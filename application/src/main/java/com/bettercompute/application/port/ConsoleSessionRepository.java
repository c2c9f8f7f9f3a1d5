package com.bettercompute.application.port;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The web console's sessions, shared by every replica on the database, so a person signed in through one
 * replica is signed in on all of them and stays signed in across restarts. Only hashes are stored: a
 * session id is a secret (the browser's cookie) and its SHA-256 is all that finds the row again; the API
 * token a session was opened with is kept as its SHA-256 too, as the principals keep it. Every write is
 * committed before it returns (or joins the caller's transaction).
 */
public interface ConsoleSessionRepository {

    /**
     * One session as kept.
     *
     * @param idHash     the SHA-256 (hex) of the session id the cookie carries
     * @param tokenHash  the SHA-256 (hex) of the API token signed in with
     * @param signedInAt when it was opened
     * @param lastSeenAt when it was last used, as {@link #seen} last moved it
     */
    record StoredSession(String idHash, String tokenHash, Instant signedInAt, Instant lastSeenAt) {
        public StoredSession {
            Objects.requireNonNull(idHash, "idHash");
            Objects.requireNonNull(tokenHash, "tokenHash");
            Objects.requireNonNull(signedInAt, "signedInAt");
            Objects.requireNonNull(lastSeenAt, "lastSeenAt");
        }
    }

    /**
     * Keeps a new session. Its id is 256 random bits, so its hash is new: a hash already kept is a
     * {@code CONFLICT} (nothing is written), never an overwrite.
     */
    void add(StoredSession session);

    /** The session of that id hash, if it is kept (expired or not: the caller decides). */
    Optional<StoredSession> find(String idHash);

    /**
     * Moves the session's {@code lastSeenAt} forward to {@code at}; never back (a slower replica's older
     * instant changes nothing). Nothing for a session not kept. Idempotent.
     */
    void seen(String idHash, Instant at);

    /** Removes the session (sign-out); true only for the one call that removed it. */
    boolean remove(String idHash);

    /**
     * Removes every session last seen before {@code lastSeenBefore} or opened before {@code signedInBefore}:
     * the ones that ended on their own. How many. Idempotent.
     */
    int removeEnded(Instant lastSeenBefore, Instant signedInBefore);

    /**
     * Keeps at most {@code keep} sessions of one API token, the most recently opened: the older ones are
     * removed (how many). Bounds what one token can make the table hold.
     */
    int keepNewest(String tokenHash, int keep);
}
