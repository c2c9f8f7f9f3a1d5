package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.ConsoleSessionRepository;
import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.application.port.VolumeRepository;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.cache.JdbiCacheBuilder;
import org.jdbi.v3.core.cache.internal.DefaultJdbiCacheBuilder;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.SqlStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The database of the product: a connection pool on a JDBC URL ({@code jdbc:h2:...} or
 * {@code jdbc:postgresql:...}) or on a PostgreSQL this process starts itself ({@code embedded-postgres:DIR},
 * the default), the schema migrated by Flyway, and the repositories on it. Close it to close the pool
 * (and then the embedded server).
 *
 * <pre>{@code
 * Database db = Database.open(Database.DEFAULT_URL);            // or open(url, user, password)
 * new CreateCluster(db.clusters(), db.catalog(), authorizer, clock);
 * }</pre>
 *
 * An H2 URL gets the flags that make H2 behave as the migrations and queries expect (see
 * {@link #effectiveUrl}); flags already in the URL are kept.
 */
public final class Database implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    /** The database cannot be opened; the message says why and what to do, and names no password. */
    public static final class CannotOpen extends IllegalStateException {
        CannotOpen(String message) {
            super(message);
        }

        CannotOpen(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What {@link #open} takes for a PostgreSQL this process starts on a directory of its own. */
    public static final String EMBEDDED_POSTGRES = "embedded-postgres:";

    /**
     * The embedded default: a PostgreSQL started by this process on {@code ./data/postgres}. (It was an
     * H2 file, {@code ./data/better-compute}, until H2 2.5.252 was seen losing acknowledged commits under
     * SIGKILL; see docs/decisions/embedded-database.md.)
     */
    public static final String DEFAULT_URL = EMBEDDED_POSTGRES + "./data/postgres";

    /** The file of the earlier H2 default, next to the embedded PostgreSQL's directory. */
    static final String FORMER_DEFAULT_FILE = "better-compute.mv.db";

    /** The connections in the pool. */
    static final int POOL_SIZE = 16;
    /**
     * Connections Jdbi's callers leave free in the pool (see {@link GatedConnections}): the market tick lock holds
     * one for as long as this replica ticks; the other serves readiness and Flyway without waiting for requests.
     */
    static final int OUTSIDE_THE_GATE = 2;

    private final HikariDataSource dataSource;
    private final GatedConnections gate;
    /** The server this process started for an {@code embedded-postgres:} URL, else null. */
    private final EmbeddedPostgresServer embedded;
    private final Jdbi jdbi;
    private final boolean postgres;
    private final JdbiTransactions transactions;
    private final JdbiClusterRepository clusters;
    private final JdbiCatalogRepository catalog;
    private final JdbiAccessRepository access;
    private final JdbiEventOutbox outbox;
    private final JdbiUsageLedger usage;
    private final JdbiMarketLedger marketLedger;
    private final JdbiMarketFeed marketFeed;
    private final JdbiLoadBalancerRepository loadBalancers;
    private final JdbiVolumeRepository volumes;
    private final JdbiStorageLedger storageLedger;
    private final JdbiInClusterLeases inClusterLeases;
    private final ChangeSignal marketSaved;
    private final ChangeSignal clustersChanged;
    private final ChangeSignal signingKeysChanged;
    private final JdbiConsoleSessionRepository consoleSessions;

    private Database(HikariDataSource dataSource, EmbeddedPostgresServer embedded, boolean postgres,
                     Supplier<JdbiCacheBuilder> caches) {
        this.dataSource = dataSource;
        this.embedded = embedded;
        this.postgres = postgres;
        this.gate = new GatedConnections(dataSource, dataSource.getMaximumPoolSize() - OUTSIDE_THE_GATE, dataSource.getConnectionTimeout());
        this.jdbi = Jdbi.create(gate).registerArgument(new Times.InstantArgumentFactory());
        jdbi.getConfig(SqlStatements.class).setTemplateCache(caches.get())
                .setSqlParser(new ColonPrefixSqlParser(caches.get()));
        this.transactions = new JdbiTransactions(jdbi, postgres);
        this.clustersChanged = new ChangeSignal(!postgres);
        this.catalog = new JdbiCatalogRepository(jdbi);
        this.access = new JdbiAccessRepository(jdbi);
        this.outbox = new JdbiEventOutbox(jdbi);
        this.clusters = new JdbiClusterRepository(jdbi, clustersChanged, postgres, transactions, access, outbox, caches.get());
        this.usage = new JdbiUsageLedger(jdbi);
        this.marketLedger = new JdbiMarketLedger(jdbi);
        this.marketFeed = new JdbiMarketFeed(jdbi);
        this.loadBalancers = new JdbiLoadBalancerRepository(jdbi);
        this.volumes = new JdbiVolumeRepository(jdbi);
        this.storageLedger = new JdbiStorageLedger(jdbi);
        this.inClusterLeases = new JdbiInClusterLeases(jdbi);
        this.marketSaved = new ChangeSignal(!postgres);
        this.signingKeysChanged = new ChangeSignal(!postgres);
        this.consoleSessions = new JdbiConsoleSessionRepository(jdbi);
    }

    /** Opens the database of a URL that carries its own credentials, if it needs any. */
    public static Database open(String jdbcUrl) {
        return open(jdbcUrl, null, null);
    }

    /** {@link #open(String, String, String, Supplier)} on Jdbi's own caches. */
    public static Database open(String jdbcUrl, String user, String password) {
        return open(jdbcUrl, user, password, DefaultJdbiCacheBuilder::builder);
    }

    /**
     * Opens the pool and migrates the schema to the latest version. {@code user} and {@code password} may
     * be null. {@code caches} makes each cache of the database's: Jdbi's rendered and parsed statements, and the
     * clusters read while nothing was written ({@link JdbiClusterRepository#find}); Jdbi's own keeps an LRU list
     * under one lock that every statement takes, even on a hit (request threads queued on it under load), so the
     * server passes one without that lock. Fails with {@link CannotOpen} (naming no password) when the URL is
     * neither H2 nor PostgreSQL nor embedded, or the database cannot be reached or migrated.
     */
    public static Database open(String jdbcUrl, String user, String password, Supplier<JdbiCacheBuilder> caches) {
        String given = effectiveUrl(jdbcUrl);
        EmbeddedPostgresServer embedded = given.startsWith(EMBEDDED_POSTGRES) ? startEmbedded(given) : null;
        try {
            return open(embedded == null ? given : embedded.jdbcUrl(), user, password, embedded, caches);
        } catch (RuntimeException e) {
            if (embedded != null) {
                embedded.close();
            }
            throw e;
        }
    }

    /**
     * The embedded PostgreSQL of {@code embedded-postgres:DIR}. A new DIR next to the file of the
     * earlier H2 default is refused: starting empty beside it would look like every cluster was lost.
     */
    private static EmbeddedPostgresServer startEmbedded(String url) {
        Path dir = Path.of(url.substring(EMBEDDED_POSTGRES.length()));
        Path parent = dir.toAbsolutePath().normalize().getParent();
        Path former = parent == null ? null : parent.resolve(FORMER_DEFAULT_FILE);
        if (former != null && Files.exists(former) && !Files.exists(dir.resolve("PG_VERSION"))) {
            throw new CannotOpen(former + " holds the data of the earlier embedded default (H2), and the"
                    + " embedded PostgreSQL in " + dir + " is new. Either keep using that file with --db jdbc:h2:file:"
                    + parent.resolve("better-compute") + " , or move it away to start on the embedded PostgreSQL"
                    + " (nothing is copied over).");
        }
        return EmbeddedPostgresServer.start(dir);
    }

    private static Database open(String url, String user, String password, EmbeddedPostgresServer embedded,
                                 Supplier<JdbiCacheBuilder> caches) {
        boolean postgres = url.startsWith("jdbc:postgresql:");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setPoolName(postgres ? "better-compute-postgresql" : "better-compute-h2");
        config.setMaximumPoolSize(POOL_SIZE);
        config.setAutoCommit(true);
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            LOG.error("cannot open the database pool", e);
            throw new CannotOpen("cannot connect to the database (" + (postgres ? "PostgreSQL" : "H2") + ")", e);
        }
        try {
            flyway(dataSource).migrate();
        } catch (RuntimeException e) {
            dataSource.close();
            LOG.error("cannot migrate the database schema", e);
            throw new CannotOpen("cannot migrate the database schema", e);
        }
        return new Database(dataSource, embedded, postgres, caches);
    }

    private static Flyway flyway(HikariDataSource dataSource) {
        return Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load();
    }

    /**
     * The URL as opened. H2 URLs get {@code MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;
     * DEFAULT_NULL_ORDERING=HIGH} (PostgreSQL's identifier case and NULL order), {@code LOCK_TIMEOUT=10000}
     * (H2 waits 1 s for a row lock by default, too short for a queue of creates behind one tenant's lock),
     * and for {@code mem:} databases {@code DB_CLOSE_DELAY=-1} (kept while the JVM lives); file databases get
     * {@code WRITE_DELAY=0}, so an acknowledged commit is on disk before the call returns.
     */
    public static String effectiveUrl(String jdbcUrl) {
        if (jdbcUrl == null || !(jdbcUrl.startsWith("jdbc:h2:") || jdbcUrl.startsWith("jdbc:postgresql:")
                || jdbcUrl.startsWith(EMBEDDED_POSTGRES) && jdbcUrl.length() > EMBEDDED_POSTGRES.length())) {
            throw new CannotOpen("the database URL must start with jdbc:h2: or jdbc:postgresql:, or be "
                    + EMBEDDED_POSTGRES + "DIRECTORY");
        }
        if (!jdbcUrl.startsWith("jdbc:h2:")) {
            return jdbcUrl;
        }
        StringBuilder url = new StringBuilder(jdbcUrl);
        String upper = jdbcUrl.toUpperCase(Locale.ROOT);
        addFlag(url, upper, "MODE", "PostgreSQL");
        addFlag(url, upper, "DATABASE_TO_LOWER", "TRUE");
        addFlag(url, upper, "DEFAULT_NULL_ORDERING", "HIGH");
        addFlag(url, upper, "LOCK_TIMEOUT", "10000");
        if (upper.startsWith("JDBC:H2:MEM:")) {
            addFlag(url, upper, "DB_CLOSE_DELAY", "-1");
        } else {
            // H2 writes commits to the file up to 500 ms late by default: a process killed in that window
            // would lose writes the API already acknowledged. 0 writes each commit before it returns.
            addFlag(url, upper, "WRITE_DELAY", "0");
        }
        return url.toString();
    }

    private static void addFlag(StringBuilder url, String upperUrl, String flag, String value) {
        if (!upperUrl.contains(";" + flag + "=")) {
            url.append(';').append(flag).append('=').append(value);
        }
    }

    public boolean postgres() {
        return postgres;
    }

    /** For adapters and tests of this module; the application sees only the ports below. */
    public Jdbi jdbi() {
        return jdbi;
    }

    public Transactions transactions() {
        return transactions;
    }

    public ClusterRepository clusters() {
        return clusters;
    }

    public CatalogRepository catalog() {
        return catalog;
    }

    public AccessRepository access() {
        return access;
    }

    public EventOutbox outbox() {
        return outbox;
    }

    public UsageLedger usage() {
        return usage;
    }

    public VolumeRepository volumes() {
        return volumes;
    }

    public StorageLedger storageLedger() {
        return storageLedger;
    }

    /**
     * A market repository on this database. It caches the last saved market, so a process makes one and
     * shares it; {@code clock} dates the requests' episodes.
     */
    public MarketRepository newMarketRepository(Clock clock) {
        return new JdbiMarketRepository(jdbi, clock, marketSaved);
    }

    /**
     * On PostgreSQL, what lets this replica hear the other replicas' market saves, cluster writes and signing keys: the
     * caller runs its {@link PostgresChangeListener#listen()} on a thread of its own, again after each failure.
     * Until it listens, the market's version and the clusters' reads go to the database. Empty on H2 (one
     * process: every write is this process's own).
     */
    public Optional<PostgresChangeListener> newChangeListener() {
        return postgres
                ? Optional.of(new PostgresChangeListener(dataSource.getJdbcUrl(), dataSource.getUsername(),
                        dataSource.getPassword(), Map.of(PostgresChangeListener.MARKET_CHANNEL, marketSaved,
                                PostgresChangeListener.CLUSTERS_CHANNEL, clustersChanged,
                                PostgresChangeListener.SIGNING_KEYS_CHANNEL, signingKeysChanged)))
                : Optional.empty();
    }

    /** The web console's sessions (hashes only), shared by every replica on this database. */
    public ConsoleSessionRepository consoleSessions() {
        return consoleSessions;
    }

    /**
     * The ID token signing keys on this database, sealed with {@code kek}: every replica on the database must be
     * given the same key-encryption key (a replica with another one is refused when it reads the keys). Other
     * replicas' rotations reach it through the change listener ({@link #newChangeListener()}).
     */
    public SigningKeyRepository newSigningKeyRepository(KeyEncryptionKey kek) {
        return new JdbiSigningKeyRepository(jdbi, java.util.Objects.requireNonNull(kek, "kek"), signingKeysChanged);
    }

    public MarketLedger marketLedger() {
        return marketLedger;
    }

    public MarketFeed marketFeed() {
        return marketFeed;
    }

    /** Whether the clusters' {@link ChangeSignal} is trusted (listening, or H2); for tests. */
    boolean hearsClusterChanges() {
        return clustersChanged.trusted();
    }

    /** The lock that lets one replica at a time run the market tick (see {@link MarketTickLock}). */
    public MarketTickLock newMarketTickLock() {
        return new MarketTickLock(dataSource, postgres, MarketTickLock.KEY, "market tick");
    }

    /** The tenant clusters' load balancers, one row per Service. */
    public com.bettercompute.application.port.LoadBalancerRepository loadBalancers() {
        return loadBalancers;
    }

    /** The lock that lets one replica at a time serve the tenant clusters' load balancers. */
    public MarketTickLock newLoadBalancerLock() {
        return new MarketTickLock(dataSource, postgres, MarketTickLock.LOAD_BALANCER_KEY, "load balancers");
    }

    /** Which replica carries the market into which tenant cluster (see {@link JdbiInClusterLeases}). */
    public com.bettercompute.application.port.InClusterLeases inClusterLeases() {
        return inClusterLeases;
    }

    // ---- for the operator: readiness, the pool's numbers, the reconciler's backlog (read by bootstrap) ----

    /** The connection pool's numbers at this moment. */
    public record PoolStats(int active, int idle, int pending, int max) {}

    /**
     * What keeps the database from serving, or empty when it answers and every migration is applied. Waits
     * at most {@code timeoutSeconds} for a connection's check. The text names no URL, user or password.
     */
    public Optional<String> readinessProblem(int timeoutSeconds) {
        if (dataSource.isClosed()) {
            return Optional.of("closed");
        }
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid(timeoutSeconds)) {
                return Optional.of("does not answer");
            }
        } catch (SQLException | RuntimeException e) {
            return Optional.of("does not answer" + (e instanceof SQLException sql && sql.getSQLState() != null
                    ? " (SQLState " + sql.getSQLState() + ")" : ""));
        }
        try {
            int pending = flyway(dataSource).info().pending().length;
            return pending == 0 ? Optional.empty() : Optional.of(pending + " migration(s) not applied");
        } catch (RuntimeException e) {
            return Optional.of("the applied migrations cannot be read");
        }
    }

    public PoolStats poolStats() {
        HikariPoolMXBean pool = dataSource.getHikariPoolMXBean();
        if (pool == null) {
            return new PoolStats(0, 0, 0, dataSource.getMaximumPoolSize());
        }
        return new PoolStats(pool.getActiveConnections(), pool.getIdleConnections(), pool.getThreadsAwaitingConnection() + gate.waiting(),
                dataSource.getMaximumPoolSize());
    }

    /**
     * Since when the longest-waiting cluster has been due for a reconcile pass (its next look, or its creation
     * when it was never looked at), leased or not; empty when none is due.
     */
    public Optional<Instant> oldestDueSince(Instant now) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT MIN(COALESCE(next_reconcile_at, created_at)) AS since FROM clusters
                        WHERE state <> 'deleted' AND (next_reconcile_at IS NULL OR next_reconcile_at <= :now)""")
                .bind("now", now).map((rs, ctx) -> Times.instant(rs, "since")).findOne());
    }

    @Override
    public void close() {
        dataSource.close();
        if (embedded != null) {
            embedded.close();
        }
    }
}
