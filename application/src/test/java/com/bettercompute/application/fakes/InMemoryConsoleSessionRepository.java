package com.bettercompute.application.fakes;

import com.bettercompute.application.port.ConsoleSessionRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Console sessions in memory, keyed by the id's hash as the database keeps them. */
public final class InMemoryConsoleSessionRepository implements ConsoleSessionRepository {
    private final Map<String, StoredSession> byIdHash = new LinkedHashMap<>();

    @Override
    public synchronized void add(StoredSession session) {
        if (byIdHash.putIfAbsent(session.idHash(), session) != null) {
            throw new DomainException(ErrorCode.CONFLICT, "a session of that id is kept already");
        }
    }

    @Override
    public synchronized Optional<StoredSession> find(String idHash) {
        return Optional.ofNullable(byIdHash.get(idHash));
    }

    @Override
    public synchronized void seen(String idHash, Instant at) {
        byIdHash.computeIfPresent(idHash, (k, s) -> s.lastSeenAt().isBefore(at)
                ? new StoredSession(s.idHash(), s.tokenHash(), s.signedInAt(), at) : s);
    }

    @Override
    public synchronized boolean remove(String idHash) {
        return byIdHash.remove(idHash) != null;
    }

    @Override
    public synchronized int removeEnded(Instant lastSeenBefore, Instant signedInBefore) {
        int before = byIdHash.size();
        byIdHash.values().removeIf(s -> s.lastSeenAt().isBefore(lastSeenBefore) || s.signedInAt().isBefore(signedInBefore));
        return before - byIdHash.size();
    }

    @Override
    public synchronized int keepNewest(String tokenHash, int keep) {
        List<StoredSession> older = byIdHash.values().stream().filter(s -> s.tokenHash().equals(tokenHash))
                .sorted(Comparator.comparing(StoredSession::signedInAt).thenComparing(StoredSession::idHash).reversed())
                .skip(keep).toList();
        older.forEach(s -> byIdHash.remove(s.idHash()));
        return older.size();
    }

    /** Every session kept, for tests that look for a plain id or token. */
    public synchronized String dump() {
        return byIdHash.values().toString();
    }

    /** Forgets every session, as a contract test's wipe between tests. */
    public synchronized void clear() {
        byIdHash.clear();
    }
}
