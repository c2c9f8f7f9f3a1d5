package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ConsoleSessionRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import org.jdbi.v3.core.Jdbi;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link ConsoleSessionRepository} on {@code console_sessions} (V86): hashes only, never a session id or a token. */
public final class JdbiConsoleSessionRepository implements ConsoleSessionRepository {
    private static final List<String> COLUMNS = List.of("id_hash", "token_hash", "signed_in_at", "last_seen_at");

    private final Db db;

    JdbiConsoleSessionRepository(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public void add(StoredSession s) {
        db.inTransactionRun("opening a console session", h -> Db.guardUnique(h, "console_session",
                handle -> handle.createUpdate(Db.insertSql("console_sessions", COLUMNS))
                        .bind("id_hash", s.idHash()).bind("token_hash", s.tokenHash())
                        .bindByType("signed_in_at", s.signedInAt(), Instant.class)
                        .bindByType("last_seen_at", s.lastSeenAt(), Instant.class).execute(),
                unique -> new DomainException(ErrorCode.CONFLICT, "a console session of that id is kept already")));
    }

    @Override
    public Optional<StoredSession> find(String idHash) {
        return db.call("reading a console session", h -> h.createQuery("SELECT " + String.join(", ", COLUMNS)
                        + " FROM console_sessions WHERE id_hash = :id_hash").bind("id_hash", idHash)
                .map((rs, ctx) -> new StoredSession(rs.getString("id_hash"), rs.getString("token_hash"),
                        Times.instant(rs, "signed_in_at"), Times.instant(rs, "last_seen_at"))).findOne());
    }

    @Override
    public void seen(String idHash, Instant at) {
        db.call("noting a console session's use", h -> h.createUpdate("UPDATE console_sessions SET last_seen_at = :at"
                        + " WHERE id_hash = :id_hash AND last_seen_at < :at")
                .bindByType("at", at, Instant.class).bind("id_hash", idHash).execute());
    }

    @Override
    public boolean remove(String idHash) {
        return db.call("closing a console session", h -> h.createUpdate("DELETE FROM console_sessions WHERE id_hash = :id_hash")
                .bind("id_hash", idHash).execute()) == 1;
    }

    @Override
    public int removeEnded(Instant lastSeenBefore, Instant signedInBefore) {
        return db.call("removing ended console sessions", h -> h.createUpdate("DELETE FROM console_sessions"
                        + " WHERE last_seen_at < :seen OR signed_in_at < :signed_in")
                .bindByType("seen", lastSeenBefore, Instant.class).bindByType("signed_in", signedInBefore, Instant.class).execute());
    }

    @Override
    public int keepNewest(String tokenHash, int keep) {
        return db.call("bounding a token's console sessions", h -> h.createUpdate("DELETE FROM console_sessions"
                        + " WHERE token_hash = :token AND id_hash NOT IN (SELECT id_hash FROM console_sessions WHERE token_hash = :token"
                        + " ORDER BY signed_in_at DESC, id_hash DESC LIMIT :keep)")
                .bind("token", tokenHash).bind("keep", keep).execute());
    }
}
