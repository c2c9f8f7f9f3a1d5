package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.bootstrap.market.MarketBook;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas of the real server on one PostgreSQL, each in a process of its own: exactly one ticks the
 * market; killed with SIGKILL, the other takes over within two tick intervals (its first tick's time
 * against the moment of the kill, with a second of slack for a loaded test machine).
 */
class MarketReplicasTest {
    private static final Pattern TICKS = Pattern.compile("(?m)^bc_market_tick_seconds_count(?:\\{[^}]*\\})? (\\S+)$");
    private static final Duration EVERY = Duration.ofSeconds(1);
    private final HttpClient http = HttpClient.newHttpClient();

    private double ticks(ServerProcess server) throws Exception {
        String body = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = TICKS.matcher(body);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** The key-encryption key both replicas are given, as every replica on one database must be. */
    private static final String KEY_ENCRYPTION_KEY = KeyEncryptionKey.random().base64();

    private static List<String> args(TestPostgres.Db pg, String replica) {
        return List.of("--port", "0", "--db", pg.urlWithCredentials(), "--market-tick-seconds",
                Long.toString(EVERY.toSeconds()), "--sim-operation-seconds", "1", "--replica-id", replica,
                "--key-encryption-key", KEY_ENCRYPTION_KEY);
    }

    @Test
    void one_replica_ticks_and_the_other_takes_over_when_it_is_killed(@TempDir Path dir) throws Exception {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        ServerProcess first = null;
        ServerProcess second = null;
        try (Database db = Database.open(pg.url(), pg.user(), pg.password())) {
            MarketRepository markets = db.newMarketRepository(Clock.systemUTC());
            new MarketBook(db.transactions(), markets, db.outbox(), Clock.systemUTC()).seed(2);
            first = ServerProcess.start(a, a.resolve("server.log"), args(pg, "replica-a"));
            Instant deadline = Instant.now().plusSeconds(60);
            while (ticks(first) < 2 && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            second = ServerProcess.start(b, b.resolve("server.log"), args(pg, "replica-b"));
            double firstBefore = ticks(first);
            Thread.sleep(EVERY.multipliedBy(3).toMillis());

            assertThat(ticks(first)).as("the first replica goes on ticking").isGreaterThan(firstBefore);
            assertThat(ticks(second)).as("the second replica waits").isZero();

            Instant killed = Instant.now();
            first.kill();
            first = null;
            Instant lastTick = markets.load().lastTick();
            while (!lastTick.isAfter(killed) && Instant.now().isBefore(killed.plusSeconds(60))) {
                Thread.sleep(50);
                lastTick = markets.load().lastTick();
            }
            assertThat(ticks(second)).as("the second replica ticks").isPositive();
            assertThat(Duration.between(killed, lastTick)).as("takeover after the kill")
                    .isLessThan(EVERY.multipliedBy(2).plusSeconds(1));
        } finally {
            if (first != null) {
                first.kill();
            }
            if (second != null) {
                second.kill();
            }
            TestPostgres.drop(pg);
        }
    }
}
