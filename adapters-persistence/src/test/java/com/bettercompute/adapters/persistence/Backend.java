package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;

import java.util.UUID;
import java.util.function.Function;

/**
 * One port on one backend, for the contracts of ports that {@link Ports} does not carry: the port, how to empty
 * it between tests, and how to close it (and drop the PostgreSQL database).
 */
record Backend<T>(String name, T port, Runnable wipe, Runnable closer) implements AutoCloseable {

    /** The port of a fresh H2 database in memory; {@code tables} are emptied between tests. */
    static <T> Backend<T> h2(Function<Database, T> port, String... tables) {
        Database db = Database.open("jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", ""));
        return on("h2", db, port, () -> {}, tables);
    }

    /** The port of a fresh database on the test PostgreSQL; {@code tables} are emptied between tests. */
    static <T> Backend<T> postgres(Function<Database, T> port, String... tables) {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        Database db = Database.open(pg.url(), pg.user(), pg.password());
        return on("postgresql", db, port, () -> TestPostgres.drop(pg), tables);
    }

    private static <T> Backend<T> on(String name, Database db, Function<Database, T> port, Runnable drop, String... tables) {
        return new Backend<>(name, port.apply(db), () -> db.jdbi().useHandle(h -> {
            for (String table : tables) {
                h.execute("DELETE FROM " + table);
            }
        }), () -> {
            db.close();
            drop.run();
        });
    }

    @Override
    public void close() {
        closer.run();
    }

    @Override
    public String toString() {
        return name;
    }
}
