package com.bettercompute.adapters.persistence;

import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Jdbi's way to the pool: never more connections out at once than the gate's permits, every caller served in turn. */
class GatedConnectionsTest {
    /** A pool that counts the connections out at once and remembers the most it saw. */
    static final class CountingPool {
        final AtomicInteger out = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        volatile boolean failing;

        DataSource dataSource() {
            return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                if (!m.getName().equals("getConnection")) {
                    throw new UnsupportedOperationException(m.getName());
                }
                if (failing) {
                    throw new SQLException("the database does not answer");
                }
                most.accumulateAndGet(out.incrementAndGet(), Math::max);
                return connection();
            });
        }

        private Connection connection() {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                if (m.getName().equals("close")) {
                    out.decrementAndGet();
                }
                return null;
            });
        }
    }

    @Test
    void forty_callers_at_once_never_hold_more_connections_than_the_permits_and_all_are_served() throws Exception {
        CountingPool pool = new CountingPool();
        GatedConnections gate = new GatedConnections(pool.dataSource(), 4, 30_000);
        ExecutorService threads = Executors.newFixedThreadPool(40);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> callers = new ArrayList<>();
        for (int t = 0; t < 40; t++) {
            callers.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 500; i++) {
                    Connection c = gate.openConnection();
                    Thread.onSpinWait();
                    gate.closeConnection(c);
                }
                return 500;
            }));
        }
        start.countDown();
        int served = 0;
        for (Future<Integer> caller : callers) {
            served += caller.get();
        }
        threads.shutdown();

        assertThat(served).isEqualTo(40 * 500);
        assertThat(pool.most.get()).isBetween(1, 4);
        assertThat(pool.out.get()).isZero();
        assertThat(gate.waiting()).isZero();
    }

    @Test
    void a_connection_the_pool_cannot_give_returns_its_permit() throws Exception {
        CountingPool pool = new CountingPool();
        GatedConnections gate = new GatedConnections(pool.dataSource(), 1, 30_000);
        pool.failing = true;
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(gate::openConnection).isInstanceOf(SQLException.class).hasMessageContaining("does not answer");
        }
        pool.failing = false;
        Connection c = gate.openConnection();
        gate.closeConnection(c);
        assertThat(pool.out.get()).isZero();
    }

    @Test
    void a_caller_that_waits_past_the_timeout_gets_a_transient_error_naming_it() throws Exception {
        CountingPool pool = new CountingPool();
        GatedConnections gate = new GatedConnections(pool.dataSource(), 1, 1);
        Connection held = gate.openConnection();
        assertThatThrownBy(gate::openConnection).isInstanceOf(java.sql.SQLTransientConnectionException.class)
                .hasMessageContaining("no database connection free");
        gate.closeConnection(held);
    }

    @Test
    void the_database_keeps_connections_outside_the_gate() {
        assertThat(Database.POOL_SIZE - Database.OUTSIDE_THE_GATE).isPositive();
        try (Database db = Database.open("jdbc:h2:mem:gated_" + java.util.UUID.randomUUID().toString().replace("-", ""))) {
            int one = db.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
            assertThat(one).isEqualTo(1);
            assertThat(db.poolStats().max()).isEqualTo(Database.POOL_SIZE);
        }
    }
}
