package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.bootstrap.market.MarketBook;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.market.MarketSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The market tick killed with SIGKILL at random moments and started again, on PostgreSQL: no grant lost
 * or doubled, no charge missing or billed twice, the feed's sequence going on. The real server ticks every
 * second in a process of its own ({@link ServerProcess}); this test plays the tenant clusters against the
 * same database meanwhile, through the application's use cases (filing jobs as Kueue would, reporting
 * granted nodes ready, ending jobs) — so the tick and those writes also race across processes. After the
 * last cycle the books are checked ({@link MarketBook#violations}): each tenant's charges in the market
 * equal its ledger plus its open entries, each grant's ledger entries follow one another without gap or
 * overlap, no node is held twice; every grant of the market was announced once in the outbox.
 *
 * <p>More cycles: {@code -Dmarket.crash.cycles=20}.
 */
class MarketSurvivesSigkillTest {

    @Test
    void a_market_killed_during_ticks_keeps_its_grants_and_charges_exact(@TempDir Path workDir) throws Exception {
        int cycles = Integer.getInteger("market.crash.cycles", 3);
        Random random = new Random(20261201L);
        TestPostgres.Db pg = TestPostgres.newDatabase();
        Path log = workDir.resolve("server.log");
        List<String> args = List.of("--port", "0", "--db", pg.urlWithCredentials(), "--market-tick-seconds", "1",
                "--sim-operation-seconds", "1", "--replica-id", "market-crash-test");
        Clock clock = Clock.tick(Clock.systemUTC(), Duration.ofMillis(1));
        int jobs = 0;
        int killedTicking = 0;
        try (Database db = Database.open(pg.url(), pg.user(), pg.password())) {
            MarketRepository markets = db.newMarketRepository(clock);
            MarketBook book = new MarketBook(db.transactions(), markets, db.outbox(), clock);
            book.seed(6);
            for (int cycle = 0; cycle < cycles; cycle++) {
                Instant tickedBefore = markets.load().lastTick();
                ServerProcess server = ServerProcess.start(workDir, log, args);
                Instant killAt = Instant.now().plusMillis(1_000 + random.nextInt(2_500));
                while (Instant.now().isBefore(killAt)) {
                    int tenant = random.nextInt(MarketBook.TENANTS.size());
                    book.file("job-" + jobs, tenant, 1 + random.nextInt(2), random.nextBoolean() ? null
                            : (1 + random.nextInt(8)) + ".50");
                    if (jobs > 4 && random.nextInt(3) == 0) {
                        endQuietly(book, "job-" + random.nextInt(jobs));
                    }
                    jobs++;
                    book.reportReady();
                    Thread.sleep(random.nextInt(300));
                }
                Instant tickedLast = markets.load().lastTick();
                server.kill();
                if (tickedLast != null && (tickedBefore == null || tickedLast.isAfter(tickedBefore))) {
                    killedTicking++;
                }
            }
            // a last run that is not killed in its ticks: the books must agree after the recovery ticks too
            ServerProcess server = ServerProcess.start(workDir, log, args);
            book.reportReady();
            Thread.sleep(3_000);
            server.kill();

            MarketSnapshot market = db.newMarketRepository(clock).load().snapshot();
            assertThat(killedTicking).as("cycles killed while the market ticked").isEqualTo(cycles);
            assertThat(market.grants()).as("the market granted nodes").isNotEmpty();
            assertThat(MarketBook.violations(market, db.marketLedger())).isEmpty();

            List<MarketFeed.Entry> feed = db.marketFeed().after(0, null, 100_000);
            assertThat(feed).extracting(MarketFeed.Entry::sequence).isSorted().doesNotHaveDuplicates();
            assertThat(feed).extracting(e -> e.tick().at()).isSorted().doesNotHaveDuplicates();

            List<String> granted = new ArrayList<>();
            for (StoredEvent e : db.outbox().read(0, 1_000_000, null)) {
                if (e.event().type().equals("market.node.granted")) {
                    granted.add((String) e.event().data().get("grantId"));
                }
            }
            assertThat(granted).as("each grant announced once").doesNotHaveDuplicates();
            Set<String> announced = new HashSet<>(granted);
            assertThat(market.grants()).extracting(MarketSnapshot.GrantState::id)
                    .as("every grant of the market was announced").allMatch(announced::contains);
        } finally {
            ServerProcess.stopEmbeddedPostgres(workDir);
            TestPostgres.drop(pg);
        }
    }

    /** A job the market already closed (ended, or revoked and requeued under its id) is not an error here. */
    private static void endQuietly(MarketBook book, String job) {
        try {
            book.endJob(job);
        } catch (com.bettercompute.domain.DomainException e) {
            // NOT_FOUND: ended before
        }
    }
}
