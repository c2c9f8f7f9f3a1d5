package com.bettercompute.adapters.http;

import static com.bettercompute.application.market.MarketWorld.ALICE;
import static com.bettercompute.application.market.MarketWorld.DAVE;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Open feed streams do not hold the concurrency places of their principal: with two places each, a
 * principal with more streams open than places still gets its ordinary calls answered; the streams
 * themselves are bounded per principal.
 */
class FeedStreamsLimitsTest {
    private static final int PLACES = 2;

    private final MarketApiWorld api = new MarketApiWorld(PLACES);
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<InputStream> streams = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (InputStream s : streams) {
            s.close();
        }
        api.close();
    }

    /** Opens a stream and reads its first event (the feed has one), so the stream is surely open. */
    private HttpResponse<InputStream> open(String token) throws Exception {
        HttpResponse<InputStream> res = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + api.port + MarketRoutes.FEED))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofInputStream());
        streams.add(res.body());
        if (res.statusCode() == 200) {
            BufferedReader in = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.startsWith("event:")) {
                // up to the first event
            }
            assertThat(line).as("the first event").isNotNull();
        }
        return res;
    }

    @Test
    void more_streams_than_places_leave_the_principals_calls_answered() throws Exception {
        api.w.tickAndReady();
        for (int i = 0; i < PLACES + 2; i++) {
            assertThat(open(ALICE).statusCode()).as("stream %d", i).isEqualTo(200);
        }

        for (int i = 0; i < 3; i++) {
            MarketApiWorld.Reply read = api.send("GET", MarketRoutes.BID + "?cluster=train", ALICE, null);
            assertThat(read.status()).as(read.body()).isEqualTo(200);
        }
    }

    @Test
    void a_principal_opens_at_most_its_streams_and_another_principal_is_not_counted() throws Exception {
        api.w.tickAndReady();
        for (int i = 0; i < FeedStreams.STREAMS_PER_PRINCIPAL; i++) {
            assertThat(open(ALICE).statusCode()).as("stream %d", i).isEqualTo(200);
        }

        HttpResponse<InputStream> refused = open(ALICE);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(new String(refused.body().readAllBytes(), StandardCharsets.UTF_8)).contains("\"reason\":\"streams\"");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(open(DAVE).statusCode()).isEqualTo(200);
    }
}
