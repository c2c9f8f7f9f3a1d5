package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The market's two one-replica-at-a-time locks on PostgreSQL, each replica played by its own {@link Database}:
 * the tick's and the load balancers' are held by one replica each at most, independently of one another,
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
        MarketTickLock balancersA = first.newLoadBalancerLock();
        MarketTickLock balancersB = second.newLoadBalancerLock();

        assertThat(tickA.tryHold()).isTrue();
        assertThat(tickB.tryHold()).isFalse();
        assertThat(balancersB.tryHold()).as("the load balancers' lock is not the tick's").isTrue();
        assertThat(balancersA.tryHold()).isFalse();
        assertThat(tickA.tryHold()).as("a holder keeps its lock").isTrue();

        balancersB.close();
        assertThat(balancersA.tryHold()).isTrue();
        tickA.close();
        assertThat(tickB.tryHold()).isTrue();

        tickB.close();
        balancersA.close();
    }

    @Test
    void a_replica_that_dies_frees_its_lock_for_the_next_one() {
        MarketTickLock balancersA = first.newLoadBalancerLock();
        assertThat(balancersA.tryHold()).isTrue();
        MarketTickLock balancersB = second.newLoadBalancerLock();
        assertThat(balancersB.tryHold()).isFalse();

        first.close();

        // PostgreSQL frees a session's advisory locks when its backend exits, a moment after the client hung up
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
            while (!balancersB.tryHold()) {
                Thread.yield();
            }
        });
        balancersB.close();
    }
}
