package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The market's two one-replica-at-a-time locks on PostgreSQL, each replica played by its own {@link Database}:
 * the tick's and the in-cluster loop's are held by one replica each at most, independently of one another,
 * and a lock given back (or lost with its replica's connection) is taken by the next one to try.
 */
class MarketLocksOnPostgresTest {
    TestPostgres.Db pg;
    Database first;
    Database second;

    @BeforeEach
    void open() {
        pg = TestPostgres.newDatabase();
        first = Database.open(pg.url(), pg.user(), pg.password());
        second = Database.open(pg.url(), pg.user(), pg.password());
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
        TestPostgres.drop(pg);
    }

    @Test
    void each_lock_has_one_holder_and_the_two_locks_are_independent() {
        MarketTickLock tickA = first.newMarketTickLock();
        MarketTickLock tickB = second.newMarketTickLock();
        MarketTickLock inClusterA = first.newInClusterLock();
        MarketTickLock inClusterB = second.newInClusterLock();

        assertThat(tickA.tryHold()).isTrue();
        assertThat(tickB.tryHold()).isFalse();
        assertThat(inClusterB.tryHold()).as("the in-cluster lock is not the tick's").isTrue();
        assertThat(inClusterA.tryHold()).isFalse();
        assertThat(tickA.tryHold()).as("a holder keeps its lock").isTrue();

        inClusterB.close();
        assertThat(inClusterA.tryHold()).isTrue();
        tickA.close();
        assertThat(tickB.tryHold()).isTrue();

        tickB.close();
        inClusterA.close();
    }

    @Test
    void a_replica_that_dies_frees_its_lock_for_the_next_one() {
        MarketTickLock inClusterA = first.newInClusterLock();
        assertThat(inClusterA.tryHold()).isTrue();
        MarketTickLock inClusterB = second.newInClusterLock();
        assertThat(inClusterB.tryHold()).isFalse();

        first.close();

        // PostgreSQL frees a session's advisory locks when its backend exits, a moment after the client hung up
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
            while (!inClusterB.tryHold()) {
                Thread.yield();
            }
        });
        inClusterB.close();
    }
}
