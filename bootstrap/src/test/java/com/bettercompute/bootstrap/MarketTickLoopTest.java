package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.market.RunMarketTick;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.bootstrap.market.MarketBook;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.MarketSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The market tick as the server runs it: on the real database, on a test clock, across a restart. */
class MarketTickLoopTest {
    /** Five minutes before the hour: the hour's ledger entries close within the ticks of a test. */
    static final Instant T0 = Instant.parse("2026-03-01T11:55:00Z");

    @TempDir
    Path dir;
    final MutableClock clock = new MutableClock(T0);

    /** Ticks every 30 virtual seconds, the clusters reporting granted nodes ready after each. */
    private static void run(MarketModule market, MarketBook book, MutableClock clock, int ticks) {
        for (int i = 0; i < ticks; i++) {
            clock.advance(Duration.ofSeconds(30));
            market.tick().run();
            book.reportReady();
        }
    }

    @Test
    void ticks_save_decisions_charges_feed_and_events_and_a_restart_goes_on_from_them() {
        String url = "jdbc:h2:file:" + dir.resolve("market");
        List<MarketFeed.Entry> before;
        try (Database db = Database.open(url); Metrics metrics = new Metrics()) {
            MarketModule market = MarketModule.start(db, clock, Duration.ofSeconds(5), false, metrics);
            MarketBook book = new MarketBook(db.transactions(), market.markets(), db.outbox(), market.clock());
            book.seed(4);
            book.file("a1", 0, 2, null);
            book.file("b1", 1, 1, null);
            book.file("c1", 2, 2, "9.00");
            run(market, book, clock, 10);
            book.endJob("b1");
            run(market, book, clock, 6);

            before = market.feed().after(0, null, 1_000);
            assertThat(before).hasSize(16);
            assertThat(before).extracting(MarketFeed.Entry::sequence).isSorted().doesNotHaveDuplicates();
            assertThat(db.outbox().read(0, 1_000, null)).extracting(e -> e.event().type())
                    .contains("market.request.filed", "market.node.granted", "market.tick.cleared");
            assertThat(db.outbox().read(0, 1_000, "gamma")).extracting(e -> e.event().type())
                    .contains("market.node.granted").doesNotContain("market.tick.cleared");
            assertThat(market.ledger().latest("gamma", 100)).isNotEmpty();
            assertThat(MarketBook.violations(market.markets().load().snapshot(), market.ledger())).isEmpty();
            market.close();
        }
        try (Database db = Database.open(url); Metrics metrics = new Metrics()) {
            MarketModule market = MarketModule.start(db, clock, Duration.ofSeconds(5), false, metrics);
            MarketBook book = new MarketBook(db.transactions(), market.markets(), db.outbox(), market.clock());
            assertThat(market.markets().load().lastTick()).isEqualTo(clock.instant());
            run(market, book, clock, 3);

            List<MarketFeed.Entry> after = market.feed().after(before.get(before.size() - 1).sequence(), null, 100);
            assertThat(after).hasSize(3).allSatisfy(e -> assertThat(e.tick().at()).isAfter(T0.plusSeconds(16 * 30)));
            assertThat(market.feed().after(0, null, 1_000).subList(0, before.size())).isEqualTo(before);
            assertThat(MarketBook.violations(market.markets().load().snapshot(), market.ledger())).isEmpty();
            market.close();
        }
    }

    @Test
    void a_tick_that_fails_before_its_commit_leaves_nothing_and_its_replay_bills_once() {
        try (Database db = Database.open("jdbc:h2:mem:tick_replay"); Metrics metrics = new Metrics()) {
            MarketModule market = MarketModule.start(db, clock, Duration.ofSeconds(5), false, metrics);
            MarketBook book = new MarketBook(db.transactions(), market.markets(), db.outbox(), market.clock());
            book.seed(3);
            book.file("a1", 0, 2, null);
            book.file("c1", 2, 1, null);
            run(market, book, clock, 6);
            AtomicBoolean crash = new AtomicBoolean(true);
            EventOutbox crashing = new EventOutbox() {
                @Override
                public void append(DomainEvent event) {
                    if (crash.get()) {
                        throw new IllegalStateException("the process dies after the charges and the save");
                    }
                    db.outbox().append(event);
                }

                @Override
                public List<StoredEvent> read(long after, int limit, String tenantId) {
                    return db.outbox().read(after, limit, tenantId);
                }
            };
            RunMarketTick tick = new RunMarketTick(db.transactions(), market.markets(), market.ledger(), market.feed(),
                    crashing, market.effects(), market.clock());
            MarketSnapshot saved = market.markets().load().snapshot();
            List<Charge> charged = market.ledger().latest("acme", 1_000);
            long feedEntries = market.feed().after(0, null, 1_000).size();
            clock.advance(Duration.ofMinutes(3));

            assertThatThrownBy(tick::run).isInstanceOf(IllegalStateException.class);
            assertThat(market.markets().load().snapshot()).isEqualTo(saved);
            assertThat(market.ledger().latest("acme", 1_000)).isEqualTo(charged);
            assertThat(market.feed().after(0, null, 1_000)).hasSize((int) feedEntries);

            crash.set(false);
            tick.run();
            List<Charge> after = market.ledger().latest("acme", 1_000);
            assertThat(after).hasSizeGreaterThan(charged.size());
            assertThat(after).extracting(Charge::key).doesNotHaveDuplicates();
            assertThat(MarketBook.violations(market.markets().load().snapshot(), market.ledger())).isEmpty();
            market.close();
        }
    }

    @Test
    void the_loop_ticks_on_its_interval_and_feeds_the_metrics() throws Exception {
        try (Database db = Database.open("jdbc:h2:mem:tick_loop"); Metrics metrics = new Metrics()) {
            MarketModule market = MarketModule.start(db, java.time.Clock.systemUTC(), Duration.ofSeconds(1), true, metrics);
            new MarketBook(db.transactions(), market.markets(), db.outbox(), market.clock()).seed(2);
            Instant deadline = Instant.now().plusSeconds(30);
            while (market.ticks() < 2 && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            market.close();

            assertThat(market.ticks()).isGreaterThanOrEqualTo(2);
            assertThat(metrics.scrape()).containsPattern("bc_market_tick_seconds_count(\\{[^}]*\\})? [1-9]");
            assertThat(market.feed().after(0, null, 100)).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void two_replicas_on_one_postgresql_tick_one_at_a_time_and_the_second_takes_over() throws Exception {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        Duration every = Duration.ofSeconds(1);
        try (Database a = Database.open(pg.url(), pg.user(), pg.password());
             Database b = Database.open(pg.url(), pg.user(), pg.password());
             Metrics ma = new Metrics(); Metrics mb = new Metrics()) {
            MarketModule first = MarketModule.start(a, java.time.Clock.systemUTC(), every, true, ma);
            new MarketBook(a.transactions(), first.markets(), a.outbox(), first.clock()).seed(2);
            Instant deadline = Instant.now().plusSeconds(30);
            while (first.ticks() < 2 && Instant.now().isBefore(deadline)) {
                Thread.sleep(50);
            }
            MarketModule second = MarketModule.start(b, java.time.Clock.systemUTC(), every, true, mb);
            Thread.sleep(3 * every.toMillis());
            assertThat(first.ticks()).isGreaterThanOrEqualTo(2);
            assertThat(second.ticks()).as("the second replica waits while the first holds the lock").isZero();

            first.close();
            Instant firstStopped = Instant.now();
            while (second.ticks() < 1 && Instant.now().isBefore(firstStopped.plusSeconds(30))) {
                Thread.sleep(20);
            }
            Duration takeover = Duration.between(firstStopped, Instant.now());
            second.close();
            assertThat(second.ticks()).isPositive();
            // the spec's bound (two intervals), with slack for a loaded test machine
            assertThat(takeover).isLessThan(every.multipliedBy(2).plusSeconds(2));
        } finally {
            TestPostgres.drop(pg);
        }
    }
}
