package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.domain.market.Market;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MarketRepository#version()} without a query ({@link ChangeSignal}): it holds while nothing is saved,
 * moves once a save of this process has committed (not before, not for a rollback), moves on another replica
 * when PostgreSQL's notification reaches it ({@link PostgresChangeListener}), and reads the database again
 * while that replica is not listening. Each replica is a {@link Database} of its own on one PostgreSQL.
 */
class MarketSaveSignalTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);

    private final Replicas replicas = new Replicas();

    @AfterEach
    void close() throws Exception {
        replicas.close();
    }

    @Test
    void on_h2_the_version_holds_without_saves_and_moves_once_a_save_commits_never_for_a_rollback(@TempDir Path dir) {
        Database db = replicas.h2(dir);
        MarketRepository markets = db.newMarketRepository(CLOCK);

        long before = markets.version();
        assertThat(markets.version()).as("nothing saved: the same number").isEqualTo(before);

        assertThatThrownBy(() -> db.transactions().inTransaction(() -> {
            markets.save(markets.load());
            assertThat(markets.version()).as("not committed yet").isEqualTo(before);
            throw new IllegalStateException("rolled back");
        })).hasMessage("rolled back");
        assertThat(markets.version()).as("a rolled back save").isEqualTo(before);

        save(db, markets);
        long after = markets.version();
        assertThat(after).as("a committed save").isNotEqualTo(before);
        assertThat(markets.version()).isEqualTo(after);
    }

    @Test
    void on_postgresql_another_replicas_save_reaches_a_listening_replica_and_one_not_listening_reads_the_database() throws Exception {
        Database first = replicas.postgres();
        Database second = replicas.postgres();
        MarketRepository writer = first.newMarketRepository(CLOCK);
        MarketRepository reader = second.newMarketRepository(CLOCK);

        // not listening yet: each call reads the saved version, which another replica's save changes at once
        long unsaved = reader.version();
        save(first, writer);
        long savedOnce = reader.version();
        assertThat(savedOnce).isNotEqualTo(unsaved);

        Replicas.Listening listening = replicas.listen(second);
        long trusted = Replicas.awaitChange(reader::version, savedOnce, "the reader starts listening");
        assertThat(reader.version()).as("nothing saved while listening: the same number").isEqualTo(trusted);

        save(first, writer);
        long heard = Replicas.awaitChange(reader::version, trusted, "the other replica's save is heard");
        save(second, reader);
        assertThat(reader.version()).as("its own save moves it at once, without waiting for the notification")
                .isNotEqualTo(heard);

        listening.stop();
        assertThat(listening.thread().isAlive()).isFalse();
        long offline = reader.version();
        save(first, writer);
        assertThat(reader.version()).as("not listening: the database is read again, so a save is seen at once")
                .isNotEqualTo(offline);
    }

    private static void save(Database db, MarketRepository markets) {
        db.transactions().inTransaction(() -> {
            Market m = markets.load();
            markets.save(m);
            return null;
        });
    }
}
