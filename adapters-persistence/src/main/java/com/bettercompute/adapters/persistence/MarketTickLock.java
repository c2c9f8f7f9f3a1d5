package com.bettercompute.adapters.persistence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Lets one replica at a time run the market tick (or, under another key, serve the tenant clusters' load
 * balancers). On PostgreSQL: a session-level advisory lock, held on a
 * connection of its own for as long as this replica ticks; a replica that dies loses its connection and so
 * the lock, and another one's next {@link #tryHold()} takes it. On H2 the database belongs to one process,
 * which always holds it.
 *
 * <p>The lock only chooses who ticks. Two ticks never interleave even if it were lost unnoticed: every tick
 * saves under the market's row lock and version (see {@link JdbiMarketRepository}). Not thread-safe: one
 * tick loop calls it.
 */
public final class MarketTickLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MarketTickLock.class);
    /** The tick's advisory lock key: "bcmktick" in ASCII, unlikely to be anyone else's. */
    static final long KEY = 0x62636d6b7469636bL;
    /** The load balancer loop's key: "bcloadbl" in ASCII. */
    static final long LOAD_BALANCER_KEY = 0x62636c6f6164626cL;

    private final DataSource dataSource;
    private final boolean postgres;
    private final long key;
    private final String what;
    private Connection held;

    MarketTickLock(DataSource dataSource, boolean postgres, long key, String what) {
        this.dataSource = dataSource;
        this.postgres = postgres;
        this.key = key;
        this.what = what;
    }

    /**
     * Whether this replica holds the lock now: keeps it when it is still held (its connection answers),
     * else tries to take it without waiting. Never throws: a database that does not answer means "not held".
     */
    public boolean tryHold() {
        if (!postgres) {
            return true;
        }
        if (held != null) {
            try {
                if (held.isValid(5)) {
                    return true;
                }
            } catch (SQLException e) {
                LOG.debug("the {} lock's connection failed: {}", what, e.getMessage());
            }
            LOG.warn("the {} lock's connection was lost; this replica stops it until it takes the lock again", what);
            closeQuietly();
        }
        Connection c = null;
        try {
            c = dataSource.getConnection();
            try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                s.setLong(1, key);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        held = c;
                        LOG.info("this replica took the {} lock and runs it", what);
                        return true;
                    }
                }
            }
            c.close();
            return false;
        } catch (SQLException e) {
            LOG.debug("the {} lock cannot be taken: {}", what, e.getMessage());
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // the connection is broken anyway
                }
            }
            return false;
        }
    }

    /** Gives the lock back (another replica may tick from its next try). */
    @Override
    public void close() {
        if (held == null) {
            return;
        }
        try (PreparedStatement s = held.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            s.setLong(1, key);
            s.execute();
        } catch (SQLException e) {
            LOG.debug("the {} lock could not be given back (closing its connection frees it): {}", what,
                    e.getMessage());
        }
        closeQuietly();
    }

    private void closeQuietly() {
        try {
            held.close();
        } catch (SQLException ignored) {
            // closing a broken connection
        }
        held = null;
    }
}
