package com.bettercompute.adapters.persistence;

import org.jdbi.v3.core.ConnectionFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Jdbi's connections from the pool, at most {@code permits} at once, the callers beyond that waiting in line
 * (a fair semaphore: parked, first come first served). Without it, with more request threads than
 * connections, HikariCP hands a returned connection to a waiting thread by spinning in
 * {@code ConcurrentBag.requite} ({@code Thread.yield}) until one takes it: thread dumps under load showed most
 * request threads there, burning the CPU the others needed. With the gate below the pool's size, Hikari
 * never has a waiter, so a connection goes back without a spin. The connections the gate leaves free are for
 * those that take one from the pool itself (the market tick lock, readiness, Flyway).
 */
final class GatedConnections implements ConnectionFactory {
    private final DataSource pool;
    private final Semaphore permits;
    private final long timeoutMillis;

    GatedConnections(DataSource pool, int permits, long timeoutMillis) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1");
        }
        this.pool = pool;
        this.permits = new Semaphore(permits, true);
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public Connection openConnection() throws SQLException {
        try {
            if (!permits.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new SQLTransientConnectionException("no database connection free within " + timeoutMillis + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLTransientConnectionException("interrupted while waiting for a database connection", e);
        }
        try {
            return pool.getConnection();
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    @Override
    public void closeConnection(Connection connection) throws SQLException {
        try {
            connection.close();
        } finally {
            permits.release();
        }
    }

    /** Callers waiting for a connection at this moment (an estimate, for the operator's metrics and tests). */
    int waiting() {
        return permits.getQueueLength();
    }
}
