package com.bettercompute.adapters.http.console;

import com.bettercompute.domain.cluster.Ids;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The console's sessions, in this process's memory. A session id is 32 random bytes, known only to the
 * browser's cookie: the map is keyed by its SHA-256, so what is held here cannot be replayed as a cookie.
 * A session ends at sign-out, after {@link #IDLE} without a request, or {@link #LIFETIME} after sign-in,
 * whichever comes first, by the injected clock.
 */
final class Sessions {
    static final Duration IDLE = Duration.ofHours(1);
    static final Duration LIFETIME = Duration.ofHours(12);
    /** Bounds the memory one flood of sign-ins can take; the oldest are dropped first. */
    static final int MAX_SESSIONS = 10_000;

    /**
     * One signed-in person. {@code tokenSha256}: the SHA-256 of the API token signed in with, never the token;
     * {@code csrf}: the synchroniser token every form of this session must send back.
     */
    record Session(String tokenSha256, String csrf, Instant signedInAt, Instant lastSeen) {
        boolean expired(Instant now) {
            return !now.isBefore(signedInAt.plus(LIFETIME)) || !now.isBefore(lastSeen.plus(IDLE));
        }

        /** Does {@code sent} equal this session's CSRF token? In time independent of where they differ. */
        boolean csrfMatches(String sent) {
            return sent != null && MessageDigest.isEqual(csrf.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    sent.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    /** A session just opened: the id to set in the cookie, and the session. */
    record Opened(String id, Session session) {}

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Clock clock;
    private final Map<String, Session> byIdHash = new ConcurrentHashMap<>();

    Sessions(Clock clock) {
        this.clock = clock;
    }

    Opened open(String tokenSha256) {
        Instant now = clock.instant();
        if (byIdHash.size() >= MAX_SESSIONS) {
            byIdHash.entrySet().removeIf(e -> e.getValue().expired(now));
            if (byIdHash.size() >= MAX_SESSIONS) {
                byIdHash.entrySet().stream().min(java.util.Comparator.comparing(e -> e.getValue().lastSeen()))
                        .ifPresent(oldest -> byIdHash.remove(oldest.getKey()));
            }
        }
        String id = random();
        Session s = new Session(tokenSha256, random(), now, now);
        byIdHash.put(Ids.sha256Hex(id), s);
        return new Opened(id, s);
    }

    /** The live session of a cookie's id, its idle clock restarted; empty (and forgotten) once expired. */
    Optional<Session> find(String id) {
        if (id == null || id.length() != 43) {
            return Optional.empty();
        }
        String key = Ids.sha256Hex(id);
        Instant now = clock.instant();
        Session s = byIdHash.computeIfPresent(key, (k, old) -> old.expired(now) ? null
                : new Session(old.tokenSha256(), old.csrf(), old.signedInAt(), now));
        return Optional.ofNullable(s);
    }

    void close(String id) {
        if (id != null) {
            byIdHash.remove(Ids.sha256Hex(id));
        }
    }

    int open() {
        return byIdHash.size();
    }

    private static String random() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
