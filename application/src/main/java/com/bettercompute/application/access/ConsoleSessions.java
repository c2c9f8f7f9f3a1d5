package com.bettercompute.application.access;

import com.bettercompute.application.port.ConsoleSessionRepository;
import com.bettercompute.application.port.ConsoleSessionRepository.StoredSession;
import com.bettercompute.domain.cluster.Ids;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Optional;

/**
 * The web console's sessions, kept in the database ({@link ConsoleSessionRepository}) so every replica knows
 * them and a restart signs nobody out. A session id is 32 random bytes known only to the browser's cookie;
 * the database keeps its SHA-256, which cannot be sent back as a cookie. The session's CSRF token is derived
 * from the id (the SHA-256 of a fixed prefix and the id), so it is stored nowhere and a reader of the
 * database cannot make it. A session ends at sign-out, after {@link #IDLE} without a request, or
 * {@link #LIFETIME} after sign-in, whichever comes first, by the injected clock.
 */
public final class ConsoleSessions {
    public static final Duration IDLE = Duration.ofHours(1);
    public static final Duration LIFETIME = Duration.ofHours(12);
    /**
     * How stale a session's last use may be before a request writes it again: a page view is a read, not a
     * write, for all but one request a minute; the idle limit is then kept to within this.
     */
    static final Duration SEEN_EVERY = Duration.ofMinutes(1);
    /** Sessions one API token may hold at once (the oldest go first): bounds what a script signing in can leave behind. */
    public static final int PER_TOKEN = 100;
    /** An id's length: 32 bytes in base64url without padding. */
    static final int ID_LENGTH = 43;
    private static final String CSRF_PREFIX = "better-compute console csrf\n";

    /**
     * One signed-in person. {@code tokenSha256}: the SHA-256 of the API token signed in with, never the token;
     * {@code csrf}: the synchroniser token every form of this session must send back.
     */
    public record Session(String tokenSha256, String csrf, Instant signedInAt, Instant lastSeen) {
        boolean ended(Instant now) {
            return !now.isBefore(signedInAt.plus(LIFETIME)) || !now.isBefore(lastSeen.plus(IDLE));
        }

        /** Does {@code sent} equal this session's CSRF token? In time independent of where they differ. */
        public boolean csrfMatches(String sent) {
            return sent != null && MessageDigest.isEqual(csrf.getBytes(StandardCharsets.US_ASCII), sent.getBytes(StandardCharsets.US_ASCII));
        }

        @Override
        public String toString() {
            return "Session[signedInAt=" + signedInAt + ", lastSeen=" + lastSeen + "]";
        }
    }

    /** A session just opened: the id to set in the cookie (a secret: {@link #toString()} hides it), and the session. */
    public record Opened(String id, Session session) {
        @Override
        public String toString() {
            return "Opened[" + session + "]";
        }
    }

    private final ConsoleSessionRepository sessions;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public ConsoleSessions(ConsoleSessionRepository sessions, Clock clock) {
        this.sessions = sessions;
        this.clock = clock;
    }

    /**
     * Opens a new session for the API token of that SHA-256 (checked by the caller). Sessions that ended on
     * their own are removed first, and the token keeps at most {@link #PER_TOKEN}.
     */
    public Opened open(String tokenSha256) {
        Instant now = now();
        sessions.removeEnded(now.minus(IDLE), now.minus(LIFETIME));
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        sessions.add(new StoredSession(Ids.sha256Hex(id), tokenSha256, now, now));
        sessions.keepNewest(tokenSha256, PER_TOKEN);
        return new Opened(id, new Session(tokenSha256, csrf(id), now, now));
    }

    /**
     * The live session of a cookie's id, its idle clock restarted; empty for an id that names none, and for a
     * session that has ended (which is then removed).
     */
    public Optional<Session> find(String id) {
        if (id == null || id.length() != ID_LENGTH) {
            return Optional.empty();
        }
        String idHash = Ids.sha256Hex(id);
        Optional<StoredSession> kept = sessions.find(idHash);
        if (kept.isEmpty()) {
            return Optional.empty();
        }
        StoredSession s = kept.get();
        Instant now = now();
        Session session = new Session(s.tokenHash(), csrf(id), s.signedInAt(), s.lastSeenAt());
        if (session.ended(now)) {
            sessions.remove(idHash);
            return Optional.empty();
        }
        if (!now.isBefore(s.lastSeenAt().plus(SEEN_EVERY))) {
            sessions.seen(idHash, now);
        }
        return Optional.of(new Session(s.tokenHash(), session.csrf(), s.signedInAt(), now));
    }

    /** Ends the session of a cookie's id (sign-out), on every replica. Nothing for an id that names none. */
    public void close(String id) {
        if (id != null && id.length() == ID_LENGTH) {
            sessions.remove(Ids.sha256Hex(id));
        }
    }

    private static String csrf(String id) {
        return Ids.sha256Hex(CSRF_PREFIX + id);
    }

    private Instant now() {
        // what both databases keep exactly, so a session read back equals the one opened
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
