package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.PostgresChangeListener;
import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.port.MarketRepository;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ChangeListening} keeps a replica listening: once its listening session is cut (here by PostgreSQL's
 * {@code pg_terminate_backend}, as a restart or a network cut would) the replica's readers go to the database,
 * and after {@link ChangeListening#PAUSE} it listens again. What the market's version answers shows which:
 * a trusted signal's number is negative, a saved version read from its row never is.
 */
class ChangeListeningTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void a_listening_session_that_is_cut_is_opened_again_and_meanwhile_readers_go_to_the_database() throws Exception {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        try (Database writer = Database.open(pg.url(), pg.user(), pg.password());
             Database replica = Database.open(pg.url(), pg.user(), pg.password())) {
            MarketRepository markets = replica.newMarketRepository(Clock.systemUTC());
            assertThat(markets.version()).as("not listening yet: the saved version").isNotNegative();
            try (ChangeListening listening = ChangeListening.start(replica.newChangeListener().orElseThrow(), "test-changes")) {
                await(() -> markets.version() < 0, "listening: the signal's number");

                int cut = writer.jdbi().withHandle(h -> h.createQuery(
                                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = :name")
                        .bind("name", PostgresChangeListener.APPLICATION_NAME).mapTo(Integer.class).one());
                assertThat(cut).as("the replica's one listening session").isEqualTo(1);
                await(() -> markets.version() >= 0, "cut: the saved version again");
                await(() -> markets.version() < 0, "listening again after the pause");
            }
            assertThat(markets.version()).as("stopped: the saved version").isNotNegative();
        } finally {
            TestPostgres.drop(pg);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (!condition.getAsBoolean()) {
            assertThat(Instant.now()).as(what).isBefore(deadline);
            Thread.sleep(2);
        }
    }
}
