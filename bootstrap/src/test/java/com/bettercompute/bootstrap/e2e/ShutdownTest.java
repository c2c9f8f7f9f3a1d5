package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.persistence.Database;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM to the server's process while clients call it and the reconciler works ten clusters every second,
 * on the embedded default's H2 file and on PostgreSQL: it exits 0 within 30 s, logs no ERROR (the database is
 * closed last, after the passes under way), and leaves no reconcile lease behind. And SIGTERM just as the market
 * starts watching a cluster ends as cleanly.
 */
class ShutdownTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "postgresql"})
    void sigterm_under_load_exits_0_within_30_s_with_no_error_and_no_lease_left(String database, @TempDir Path dir) throws Exception {
        String db = database.equals("h2") ? "jdbc:h2:file:" + dir.resolve("bc") : RunningServer.postgres();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger answered = new AtomicInteger();
        Set<Integer> serverErrors = ConcurrentHashMap.newKeySet();
        List<Thread> clients = new ArrayList<>();
        try (OperatedServer server = OperatedServer.start(dir.resolve("server.log"), "--port", "0", "--db", db,
                "--catalog", RunningServer.catalogFile().toString(), "--sim-operation-seconds", "1",
                "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "1", "--replica-id", "shutdown-test")) {
            for (int i = 0; i < 10; i++) {
                assertThat(call(server, "create", ClustersApiContract.standard("acme", "load-" + i))).isEqualTo(200);
            }
            for (int t = 0; t < 4; t++) {
                Thread client = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            int status = call(server, "list", Map.of("tenantId", "acme"));
                            if (status >= 500) {
                                serverErrors.add(status);
                            }
                            answered.incrementAndGet();
                        } catch (Exception refusedOnceStopped) {
                            // the server stops taking connections: the client sees it, as a real one would
                        }
                    }
                });
                client.start();
                clients.add(client);
            }
            awaitPasses(server, 20);

            Integer exit = server.terminate(30);
            stop.set(true);
            for (Thread client : clients) {
                client.join();
            }
            assertThat(exit).as("the exit code within 30 s (null: still running)").isEqualTo(0);
            assertThat(answered.get()).isPositive();
            // a request that comes on an open connection once the stop has begun is told 503 (go elsewhere)
            assertThat(serverErrors).as("5xx answered while stopping").isSubsetOf(503);
            // WARNs may come from the provider on a loaded machine (a deadline); the stop itself adds none
            assertThat(server.lines()).as("the server's output").noneMatch(l -> l.contains("ERROR"))
                    .noneMatch(l -> l.contains("already closed")).anyMatch(l -> l.contains("stopped: api"));
        }
        try (Connection c = DriverManager.getConnection(Database.effectiveUrl(db)); Statement s = c.createStatement();
             ResultSet leases = s.executeQuery("SELECT COUNT(*), COUNT(lease_owner) FROM clusters")) {
            leases.next();
            assertThat(leases.getInt(1)).isEqualTo(10);
            assertThat(leases.getInt(2)).as("clusters still leased").isZero();
        }
    }

    /**
     * SIGTERM just as the market starts watching a new cluster, while its informers' first lists are still under
     * way (on the embedded default with the demo catalog, whose pool is a market's): the stop waits for them
     * rather than closing their client under them, so it exits 0 with no ERROR as any other stop.
     */
    @Test
    void sigterm_as_the_market_starts_watching_a_cluster_exits_0_with_no_error(@TempDir Path dir) throws Exception {
        try (OperatedServer server = OperatedServer.start(dir.resolve("server.log"), "--port", "0", "--sim-operation-seconds", "1",
                "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "1", "--replica-id", "shutdown-watch-test")) {
            String token = server.lines().stream().filter(l -> l.startsWith("demo API token (user:demo@"))
                    .map(l -> l.substring(l.lastIndexOf(' ') + 1)).findFirst().orElseThrow();
            Map<String, Object> cluster = Map.of("tenantId", "demo", "poolId", "pool_00000000000000000000000001",
                    "name", "watched", "mode", "standard", "location", "us-central1-a", "idempotencyKey", "watched-1",
                    "nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 2,
                            "accelerators", Map.of("type", "nvidia-h100-80gb", "count", 8))));
            assertThat(call(server, token, "create", cluster)).isEqualTo(200);
            server.awaitLine("its demand watch started", 120);

            Integer exit = server.terminate(30);

            assertThat(exit).as("the exit code within 30 s (null: still running)").isEqualTo(0);
            assertThat(server.lines()).as("the server's output").noneMatch(l -> l.contains("ERROR"))
                    .anyMatch(l -> l.contains("stopped: api"));
        }
    }

    private static int call(OperatedServer server, String method, Map<String, Object> body) throws Exception {
        return call(server, RunningServer.ALICE, method, body);
    }

    private static int call(OperatedServer server, String token, String method, Map<String, Object> body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUrl + "/api/compute/kubernetesClusters/" + method))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(RunningServer.JSON.writeValueAsString(body))).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    private static void awaitPasses(OperatedServer server, int passes) throws Exception {
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (System.nanoTime() < deadline) {
            String text = HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            if (new Scrape(text).sum("bc_reconcile_passes_seconds_count", Map.of()).orElse(0) >= passes) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the reconciler ran fewer than " + passes + " passes in 90 s");
    }
}
