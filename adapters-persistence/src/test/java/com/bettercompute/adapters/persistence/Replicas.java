package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Replicas for the change-signal tests: {@link Database}s on one PostgreSQL (or an H2 file), each listening
 * on a thread of its own when asked, all closed (and the PostgreSQL database dropped) by {@link #close()}.
 */
final class Replicas implements AutoCloseable {
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private TestPostgres.Db pg;

    Database h2(Path dir) {
        return opened(Database.open("jdbc:h2:file:" + dir.resolve("db")));
    }

    /** A replica on this test's PostgreSQL (made at the first call). */
    Database postgres() {
        if (pg == null) {
            pg = TestPostgres.newDatabase();
        }
        return opened(Database.open(pg.url(), pg.user(), pg.password()));
    }

    /** Starts the replica's listener; the returned handle stops it (the thread then ends). */
    Listening listen(Database replica) {
        PostgresChangeListener listener = replica.newChangeListener().orElseThrow();
        Thread thread = new Thread(() -> {
            try {
                listener.listen();
            } catch (Exception e) {
                // stopped: the connection closed under it
            }
        });
        thread.start();
        Listening listening = new Listening(listener, thread);
        toClose.add(listening::stop);
        return listening;
    }

    record Listening(PostgresChangeListener listener, Thread thread) {
        void stop() throws InterruptedException {
            listener.stop();
            thread.join(PATIENCE.toMillis());
        }
    }

    /** Waits (yielding: no clock, no sleep) until {@code condition} holds; fails after {@link #PATIENCE}. */
    static void await(BooleanSupplier condition, String what) {
        assertTimeoutPreemptively(PATIENCE, () -> {
            while (!condition.getAsBoolean()) {
                Thread.yield();
            }
        }, what);
    }

    /** Waits until {@code version} answers a number other than {@code from}, and returns it; fails after {@link #PATIENCE}. */
    static long awaitChange(java.util.function.LongSupplier version, long from, String what) {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        await(() -> {
            now.set(version.getAsLong());
            return now.get() != from;
        }, what);
        return now.get();
    }

    private Database opened(Database db) {
        toClose.add(db);
        return db;
    }

    @Override
    public void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (pg != null) {
            TestPostgres.drop(pg);
        }
    }
}
