package com.bettercompute.bootstrap.e2e;

import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The market's routes on the real server (embedded H2, the in-process GKE simulator, the tick loop every
 * second), with the e2e catalog plus a market section: the operator enrols acme's cluster, acme sets a
 * limit and reads it back, reads its balance (the catalog's credits, granted once even across a restart)
 * and the feed the ticks write; globex never sees acme's cluster. Globex is market-managed in the catalog:
 * its cluster is enrolled by itself when the reconciler finds it ready.
 */
class MarketApiEndToEndTest {
    static final String MARKET = """
            market:
              durations: {notice: 10s, minimumHold: 2m, protectionWindow: 4m, idleGrace: 30s}
              pools:
                - id: us-central1/h100-8x
                  account: acct_platform
                  zone: us-central1-a
                  machineType: a3-highgpu-8g
                  accelerator: {type: nvidia-h100-80gb, count: 8}
                  nodes: 4
                  reserve: "1.20"
            """;
    /** Every exchange is also checked against the served OpenAPI document. */
    static final HttpClient HTTP = com.bettercompute.adapters.http.contract.CheckedHttpClient.of(HttpClient.newHttpClient());

    static Path catalog() throws IOException {
        Path file = RunningServer.catalogFile();
        String text = Files.readString(file, StandardCharsets.UTF_8)
                .replace("  - id: acme\n    maxClusters: 10\n", "  - id: acme\n    maxClusters: 10\n    credits: \"500\"\n")
                .replace("  - id: globex\n    maxClusters: 3\n", "  - id: globex\n    maxClusters: 3\n    market: {maxClusterGpus: 16}\n")
                + MARKET;
        assertThat(text).contains("credits: \"500\"").contains("maxClusterGpus: 16");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    static RunningServer start(String db, Path catalog) {
        return RunningServer.start(ServerConfig.defaults().withPort(0).withDb(db).withCatalog(catalog)
                .withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(1));
    }

    @Test
    void the_operator_enrols_a_cluster_and_its_tenant_bids_and_reads_its_balance_and_the_feed() throws Exception {
        String db = RunningServer.h2();
        Path catalog = catalog();
        String clusterId;
        try (RunningServer s = start(db, catalog)) {
            RunningServer.Reply created = s.call("create", RunningServer.ALICE, "{\"tenantId\":\"acme\",\"name\":\"train\","
                    + "\"mode\":\"autopilot\",\"location\":\"us-central1\",\"poolId\":\"" + RunningServer.POOL
                    + "\",\"idempotencyKey\":\"train\"}");
            assertThat(created.status()).as(created.text()).isEqualTo(200);
            clusterId = created.json().get("id").asText();

            Reply notYet = send(s, "PUT", "/api/k8s/bid", RunningServer.ALICE, "{\"cluster\":\"train\",\"limit_price\":\"2.40\"}");
            assertThat(notYet.status()).as("not market-managed yet").isEqualTo(404);

            Reply enrolled = send(s, "PUT", "/api/operator/market/clusters", RunningServer.OPS,
                    "{\"cluster_id\":\"" + clusterId + "\",\"max_cluster_gpus\":32}");
            assertThat(enrolled.status()).as(enrolled.text()).isEqualTo(200);
            assertThat(enrolled.json().get("org").asText()).isEqualTo("acme");
            assertThat(send(s, "PUT", "/api/operator/market/clusters", RunningServer.ALICE,
                    "{\"cluster_id\":\"" + clusterId + "\"}").status()).as("operators only").isEqualTo(403);

            Reply tooLow = send(s, "PUT", "/api/k8s/bid", RunningServer.ALICE, "{\"cluster\":\"train\",\"limit_price\":\"1.00\"}");
            assertThat(tooLow.status()).isEqualTo(400);
            assertThat(tooLow.json().at("/error/details/reason").asText()).isEqualTo("bid-too-low");
            Reply set = send(s, "PUT", "/api/k8s/bid", RunningServer.ALICE, "{\"cluster\":\"train\",\"limit_price\":\"2.40\"}");
            assertThat(set.status()).as(set.text()).isEqualTo(200);
            Reply read = send(s, "GET", "/api/k8s/bid?cluster=train", RunningServer.DAVE, null);
            assertThat(read.json().get("limit_price").asText()).isEqualTo("2.40");
            assertThat(read.json().get("bid_too_low").asBoolean()).isFalse();
            assertThat(read.json().at("/pools/0/reserve").asText()).isEqualTo("1.20");
            assertThat(send(s, "GET", "/api/k8s/bid?cluster=train", RunningServer.CAROL, null).status())
                    .as("another organization's cluster never answers").isEqualTo(404);

            Reply balance = send(s, "GET", "/api/k8s/balance", RunningServer.DAVE, null);
            assertThat(balance.json().get("credits").asText()).isEqualTo("500.00");
            assertThat(balance.json().get("balance").asText()).isEqualTo("500.00");
            assertThat(balance.json().at("/entries/0/kind").asText()).isEqualTo("credit");

            JsonNode feed = waitForFeed(s);
            assertThat(feed.at("/items/0/pool").asText()).isEqualTo("us-central1/h100-8x");
            assertThat(feed.at("/items/0/supply").asInt()).isEqualTo(4);
            assertThat(feed.get("next").asLong()).isPositive();

            RunningServer.Reply globex = s.call("create", RunningServer.CAROL, "{\"tenantId\":\"globex\",\"name\":\"serve\","
                    + "\"mode\":\"autopilot\",\"location\":\"us-central1\",\"poolId\":\"" + RunningServer.POOL
                    + "\",\"idempotencyKey\":\"serve\"}");
            assertThat(globex.status()).as(globex.text()).isEqualTo(200);
            Reply enrolledWhenReady = waitFor(s, "/api/k8s/bid?cluster=serve", RunningServer.CAROL);
            assertThat(enrolledWhenReady.json().get("limit_price").isNull()).isTrue();
            assertThat(enrolledWhenReady.json().get("bid_too_low").asBoolean()).isTrue();

            Reply topUp = send(s, "POST", "/api/operator/market/credits", RunningServer.OPS,
                    "{\"org\":\"acme\",\"amount\":\"100\",\"idempotency_key\":\"e2e-1\"}");
            assertThat(topUp.status()).as(topUp.text()).isEqualTo(200);
            assertThat(send(s, "POST", "/api/operator/market/credits", RunningServer.OPS,
                    "{\"org\":\"acme\",\"amount\":\"100\",\"idempotency_key\":\"e2e-1\"}").json().get("replayed").asBoolean()).isTrue();
            assertThat(send(s, "POST", "/api/operator/market/credits", RunningServer.OPS,
                    "{\"org\":\"acme\",\"amount\":\"100\"}").status()).as("no idempotency key").isEqualTo(400);
        }
        try (RunningServer again = start(db, catalog)) {
            Reply balance = send(again, "GET", "/api/k8s/balance", RunningServer.ALICE, null);
            assertThat(balance.json().get("credits").asText()).as("catalog credits once, the top-up once").isEqualTo("600.00");
            assertThat(send(again, "GET", "/api/k8s/bid?cluster=train", RunningServer.ALICE, null).json()
                    .get("limit_price").asText()).isEqualTo("2.40");
        }
    }

    record Reply(int status, JsonNode json, String text) {}

    static Reply send(RunningServer s, String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(s.baseUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token);
        HttpResponse<String> res = HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(res.statusCode(), RunningServer.JSON.readTree(res.body()), res.body());
    }

    /** The first 200 of a GET, polled while the server works towards it. */
    static Reply waitFor(RunningServer s, String path, String token) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        Reply last = null;
        while (Instant.now().isBefore(deadline)) {
            last = send(s, "GET", path, token, null);
            if (last.status() == 200) {
                return last;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(path + " did not answer 200 in 60 s; last: " + last);
    }

    /** The feed once the tick loop wrote to it (it ticks every second). */
    static JsonNode waitForFeed(RunningServer s) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (Instant.now().isBefore(deadline)) {
            Reply feed = send(s, "GET", "/api/k8s/market/feed?pool=us-central1/h100-8x", RunningServer.CAROL, null);
            assertThat(feed.status()).as(feed.text()).isEqualTo(200);
            if (!feed.json().get("items").isEmpty()) {
                return feed.json();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the tick loop wrote no feed entry in 30 s");
    }
}
