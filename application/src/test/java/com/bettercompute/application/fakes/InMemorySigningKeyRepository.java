package com.bettercompute.application.fakes;

import com.bettercompute.application.port.SigningKeyRepository;

import java.util.List;
import java.util.TreeMap;

/** Signing keys in memory, by generation; one instance shared by several signers plays replicas on one database. */
public final class InMemorySigningKeyRepository implements SigningKeyRepository {
    private final TreeMap<Long, SigningKey> byGeneration = new TreeMap<>();
    private long version;

    @Override
    public synchronized List<SigningKey> all() {
        return List.copyOf(byGeneration.values());
    }

    @Override
    public synchronized boolean add(SigningKey key) {
        if (byGeneration.putIfAbsent(key.generation(), key) != null) {
            return false;
        }
        version++;
        return true;
    }

    @Override
    public synchronized int removeBefore(long generation) {
        var older = byGeneration.headMap(generation);
        int removed = older.size();
        older.clear();
        return removed;
    }

    @Override
    public synchronized long version() {
        return version;
    }

    /** Forgets every key, as a contract test's wipe between tests. */
    public synchronized void clear() {
        byGeneration.clear();
    }
}
