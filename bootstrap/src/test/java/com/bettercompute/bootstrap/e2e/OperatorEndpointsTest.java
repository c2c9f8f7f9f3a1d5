package com.bettercompute.bootstrap.e2e;

import com.bettercompute.bootstrap.ServerConfig;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Predicate;

import static com.bettercompute.bootstrap.e2e.RunningServer.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /healthz}, {@code /readyz} and {@code /metrics} of the real wiring: readiness follows the database
 * (stopped and started under the server) and the provider; a scrape after some traffic and reconcile
 * passes has every family with the labels an operator queries by.
 */
class OperatorEndpointsTest {

    @Test
    void metrics_have_every_family_with_plausible_labels_after_traffic_and_passes() throws Exception {
        // the market ticks an hour after the start, not within this test: its meters exist before any tick and read 0
        ServerConfig config = ServerConfig.defaults().withPort(0).withDb(RunningServer.h2()).withCatalog(RunningServer.catalogFile())
                .withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(3600);
        try (RunningServer server = RunningServer.start(config)) {
            String id = server.call("create", ALICE, ClustersApiContract.standard("acme", "metered")).json().get("id").asText();
            assertThat(server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).status()).isEqualTo(200);
            assertThat(server.call("get", "not-a-token", Map.of("tenantId", "acme", "clusterId", id)).status()).isEqualTo(401);
            assertThat(server.get("/no/such/path/" + id, ALICE).status()).isEqualTo(404);
            Scrape scrape = awaitScrape(server, s -> s.sum("bc_reconcile_passes_seconds_count", Map.of("outcome", "accepted")).orElse(0) >= 1
                    && s.sum("bc_provider_calls_seconds_count", Map.of("method", "createCluster", "result", "ok")).orElse(0) >= 1);

            String get = "/api/compute/kubernetesClusters/get";
            assertThat(scrape.sum("bc_http_requests_seconds_count", Map.of("route", get, "method", "POST", "status", "200"))).hasValue(1);
            assertThat(scrape.sum("bc_http_requests_seconds_count", Map.of("route", get, "method", "POST", "status", "401"))).hasValue(1);
            assertThat(scrape.samples("bc_http_requests_seconds_bucket", Map.of("route", get, "status", "200"))).isNotEmpty();
            assertThat(scrape.sum("bc_http_requests_seconds_count", Map.of("route", "unmatched", "status", "404"))).hasValue(1);
            assertThat(scrape.text()).as("a raw path is never a label").doesNotContain("/no/such/path");

            assertThat(scrape.sum("bc_provider_calls_seconds_count", Map.of("method", "observe", "result", "ok")).orElse(0)).isPositive();
            assertThat(scrape.samples("bc_reconcile_passes_seconds_count", Map.of("outcome", "failed"))).hasSize(1);
            assertThat(scrape.samples("bc_reconcile_oldest_due_age_seconds", Map.of())).hasSize(1);

            // no tick has run: the market's meters are there all the same, at 0
            assertThat(scrape.sum("bc_market_tick_seconds_count", Map.of())).hasValue(0);
            assertThat(scrape.sum("bc_market_grants_total", Map.of())).hasValue(0);
            assertThat(scrape.sum("bc_market_reclaims_total", Map.of())).hasValue(0);

            assertThat(scrape.samples("bc_db_pool_connections", Map.of("state", "active"))).hasSize(1);
            assertThat(scrape.samples("bc_db_pool_connections", Map.of("state", "idle"))).hasSize(1);
            assertThat(scrape.sum("bc_db_pool_max_connections", Map.of())).hasValue(16);

            assertThat(scrape.sum("jvm_memory_used_bytes", Map.of("area", "heap")).orElse(0)).isPositive();
            assertThat(scrape.sum("jvm_threads_live_threads", Map.of()).orElse(0)).isPositive();
            assertThat(scrape.sum("jvm_classes_loaded_classes", Map.of()).orElse(0)).isPositive();
            assertThat(scrape.sum("process_uptime_seconds", Map.of()).orElse(0)).isPositive();
            assertThat(scrape.text()).contains("jvm_gc_");
        }
    }

    @Test
    void ready_only_while_the_database_answers_and_alive_throughout(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Server h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-baseDir", dir.toString(), "-ifNotExists").start();
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/bc";
        try (RunningServer server = RunningServer.start(url)) {
            assertThat(server.get("/healthz", null).status()).isEqualTo(200);
            RunningServer.Reply ready = server.get("/readyz", null);
            assertThat(ready.status()).as(ready.text()).isEqualTo(200);
            assertThat(ready.json().get("status").asText()).isEqualTo("ready");

            h2.stop();
            RunningServer.Reply down = awaitReadyz(server, 503);
            assertThat(down.json().get("missing").has("database")).as(down.text()).isTrue();
            assertThat(down.json().get("missing").has("provider")).as(down.text()).isFalse();
            assertThat(down.text()).doesNotContain(url).doesNotContain(dir.toString());
            assertThat(server.get("/healthz", null).status()).isEqualTo(200);

            h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-baseDir", dir.toString(), "-ifNotExists").start();
            assertThat(awaitReadyz(server, 200).json().get("status").asText()).isEqualTo("ready");
        } finally {
            h2.stop();
        }
    }

    @Test
    void not_ready_while_the_provider_cannot_be_reached() throws Exception {
        int closedPort;
        try (ServerSocket free = new ServerSocket(0)) {
            closedPort = free.getLocalPort();
        }
        ServerConfig config = ServerConfig.defaults().withPort(0).withDb(RunningServer.h2()).withCatalog(RunningServer.catalogFile())
                .withProvider("simulator", "127.0.0.1:" + closedPort, 1, 1, 2).withoutReconciler();
        try (RunningServer server = RunningServer.start(config)) {
            RunningServer.Reply reply = awaitReadyz(server, 503);
            assertThat(reply.json().get("status").asText()).isEqualTo("unavailable");
            assertThat(reply.json().get("missing").get("provider").asText()).as(reply.text()).startsWith("does not answer");
            assertThat(reply.json().get("missing").has("database")).isFalse();
        }
    }

    private static RunningServer.Reply awaitReadyz(RunningServer server, int status) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        RunningServer.Reply reply = server.get("/readyz", null);
        while (reply.status() != status && System.nanoTime() < deadline) {
            Thread.sleep(250);
            reply = server.get("/readyz", null);
        }
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        return reply;
    }

    private static Scrape awaitScrape(RunningServer server, Predicate<Scrape> ready) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        Scrape scrape = new Scrape(server.get("/metrics", null).text());
        while (!ready.test(scrape) && System.nanoTime() < deadline) {
            Thread.sleep(250);
            scrape = new Scrape(server.get("/metrics", null).text());
        }
        assertThat(ready.test(scrape)).as(scrape.text()).isTrue();
        return scrape;
    }
}
