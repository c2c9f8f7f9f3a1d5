package com.bettercompute.adapters.persistence;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;

/**
 * Moves the {@link ChangeSignal}s when another replica commits a change: a connection of its own (not one of
 * the pool's) that LISTENs on each signal's channel, which the tables' triggers notify in the writing
 * transaction (V51, V52, V87). PostgreSQL delivers a notification only once its transaction commits, and to every
 * listening session, this replica's too.
 *
 * <p>{@link #listen()} runs until the connection fails or the thread is interrupted; the signals are trusted
 * only while it runs. Whoever calls it (bootstrap's thread) calls it again after a pause; this class never waits
 * but on the database.
 */
public final class PostgresChangeListener {
    /** The channel of the market's saves (notified by the market_state row's trigger, V52). */
    static final String MARKET_CHANNEL = "bc_market_saved";
    /** The channel of the writes to clusters and their node pools (notified by their trigger, V51). */
    static final String CLUSTERS_CHANNEL = "bc_clusters_changed";
    /** The channel of the writes to the ID token signing keys (notified by their trigger, V87). */
    static final String SIGNING_KEYS_CHANNEL = "bc_signing_keys_changed";
    /** The connection's name in {@code pg_stat_activity}, for an operator looking at the sessions. */
    public static final String APPLICATION_NAME = "better-compute change listener";
    /** How long one wait for notifications lasts before the connection is checked with a query. */
    private static final int WAIT_MILLIS = 10_000;

    private final String url;
    private final String user;
    private final String password;
    /** The signal of each channel. */
    private final Map<String, ChangeSignal> signals;
    private volatile Connection open;

    PostgresChangeListener(String url, String user, String password, Map<String, ChangeSignal> signals) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.signals = Map.copyOf(signals);
    }

    /**
     * Listens until the connection fails (thrown) or the thread is interrupted (returns). The signals are
     * trusted from the moment the LISTENs are in place, and no longer once this returns or throws.
     */
    public void listen() throws SQLException {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        properties.setProperty("ApplicationName", APPLICATION_NAME);
        try (Connection c = DriverManager.getConnection(url, properties)) {
            open = c;
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                for (String channel : signals.keySet()) {
                    s.execute("LISTEN " + channel);
                }
            }
            PGConnection pg = c.unwrap(PGConnection.class);
            // from here every commit reaches this connection: the signals' numbers can be trusted
            signals.values().forEach(signal -> signal.trusted(true));
            while (!Thread.currentThread().isInterrupted()) {
                PGNotification[] arrived = pg.getNotifications(WAIT_MILLIS);
                if (arrived != null && arrived.length > 0) {
                    for (PGNotification n : arrived) {
                        ChangeSignal signal = signals.get(n.getName());
                        if (signal != null) {
                            signal.committed();
                        }
                    }
                } else {
                    // nothing for a while: make sure the connection still answers (a dead one raises here)
                    try (Statement s = c.createStatement()) {
                        s.execute("SELECT 1");
                    }
                }
            }
        } finally {
            open = null;
            signals.values().forEach(signal -> signal.trusted(false));
        }
    }

    /** Ends a {@link #listen()} under way, from another thread: its connection closes and it throws. */
    public void stop() {
        Connection c = open;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing is all that was asked; the listening thread sees the failure
            }
        }
    }
}
