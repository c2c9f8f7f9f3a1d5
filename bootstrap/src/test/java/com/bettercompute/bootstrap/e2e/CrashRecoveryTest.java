package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server killed with SIGKILL at random moments while it creates, updates and deletes clusters, and
 * started again each time on the same PostgreSQL database, against one standalone GKE simulator that
 * outlives it:
 * in the end every cluster is where the tenant asked, the simulator holds exactly one cluster per live
 * one and none of the deleted one, every acknowledged write is there, and nothing was published twice.
 */
class CrashRecoveryTest {
    static final ObjectMapper JSON = new ObjectMapper();
    /** Every exchange is also checked against the served OpenAPI document. */
    static final HttpClient HTTP = com.bettercompute.adapters.http.contract.CheckedHttpClient.of(HttpClient.newHttpClient());
    /** The killed servers' logs, kept for a person to read after a failure. */
    static final Path LOG = Path.of("target", "crash-recovery-server.log");

    /** The servers' working directory (their ./data), the test's own. */
    @TempDir
    Path work;
    GkeSimulator simulator;
    ServerProcess server;
    String base;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.kill();
        }
        if (simulator != null) {
            simulator.close();
        }
    }

    void startServer(Path catalog, String database) throws IOException, InterruptedException {
        server = ServerProcess.start(work, LOG, List.of("--port", "0", "--db", database, "--catalog", catalog.toString(),
                "--gke-endpoint", simulator.grpcTarget(), "--reconcile-converging-seconds", "1",
                "--reconcile-settled-seconds", "2", "--replica-id", "crash-test"));
        base = server.baseUrl();
    }

    void kill() throws InterruptedException {
        server.kill();
        server = null;
    }

    JsonNode call(String method, Object body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/compute/kubernetesClusters/" + method))
                .header("Authorization", "Bearer " + RunningServer.ALICE).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    JsonNode get(String id) throws Exception {
        return call("get", Map.of("tenantId", "acme", "clusterId", id));
    }

    List<String> events(String id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/events?tenantId=acme&limit=1000"))
                .header("Authorization", "Bearer " + RunningServer.ALICE).GET().build();
        JsonNode items = JSON.readTree(HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body()).get("items");
        List<String> types = new ArrayList<>();
        for (JsonNode e : items) {
            if (e.get("subjectId").asText().equals(id)) {
                types.add(e.get("type").asText());
            }
        }
        return types;
    }

    void await(String id, Predicate<JsonNode> condition, String what) throws Exception {
        Instant deadline = Instant.now().plusSeconds(90);
        JsonNode c = get(id);
        while (!condition.test(c)) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError(id + " never became " + what + ": " + c + "; its events: " + events(id));
            }
            Thread.sleep(250);
            c = get(id);
        }
    }

    static Map<String, Object> autopilot(String name) {
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", name));
        body.put("mode", "autopilot");
        body.put("location", "us-central1");
        body.remove("nodePools");
        return body;
    }

    @Test
    void killed_at_random_moments_it_resumes_without_a_second_cluster_an_orphan_or_a_lost_request() throws Exception {
        simulator = GkeSimulator.start(Clock.systemUTC(), Duration.ofSeconds(1), 0, 0, GkeSimulatorCommand.SLEEP);
        Path catalog = RunningServer.catalogFile();
        Random random = new Random(42);
        // PostgreSQL by default; -Dcrash.db=h2 runs the same scenario on an H2 file.
        String database = "h2".equals(System.getProperty("crash.db"))
                ? "jdbc:h2:file:" + java.nio.file.Files.createTempDirectory("crash-h2").resolve("bc") : RunningServer.postgres();
        startServer(catalog, database);
        String standard = call("create", ClustersApiContract.standard("acme", "crash-std")).get("id").asText();
        String auto = call("create", autopilot("crash-auto")).get("id").asText();
        String doomed = call("create", autopilot("crash-doomed")).get("id").asText();

        for (int cycle = 0; cycle < 6; cycle++) {
            Thread.sleep(300 + random.nextInt(2500));
            kill();
            startServer(catalog, database);
            if (cycle == 1) {
                // an update in place of a ready cluster, then killed in the middle of it
                await(auto, c -> c.get("state").asText().equals("ready"), "ready");
                JsonNode acknowledged = call("update", Map.of("tenantId", "acme", "clusterId", auto, "releaseChannel", "rapid"));
                assertThat(acknowledged.get("releaseChannel").asText()).isEqualTo("rapid");
                System.err.println("update acknowledged at " + Instant.now() + ": " + acknowledged);
            }
            if (cycle == 2) {
                call("delete", Map.of("tenantId", "acme", "clusterId", doomed));
            }
        }

        await(standard, c -> c.get("state").asText().equals("ready"), "ready");
        await(auto, c -> c.get("state").asText().equals("ready") && c.get("releaseChannel").asText().equals("rapid"), "ready on rapid");
        await(doomed, c -> c.get("state").asText().equals("deleted"), "deleted");

        List<String> atProvider = simulator.clusters();
        String std = get(standard).get("providerName").asText();
        String ap = get(auto).get("providerName").asText();
        String gone = get(doomed).get("providerName").asText();
        assertThat(atProvider.stream().filter(n -> n.endsWith("/" + std))).hasSize(1);
        assertThat(atProvider.stream().filter(n -> n.endsWith("/" + ap))).hasSize(1);
        assertThat(atProvider).noneMatch(n -> n.endsWith("/" + gone));
        assertThat(atProvider).hasSize(2);
        assertThat(get(standard).get("nodePools").findValuesAsText("state")).containsOnly("ready");

        assertThat(events(standard)).containsExactly("kubernetes.cluster.created", "kubernetes.cluster.ready");
        assertThat(events(auto).stream().filter("kubernetes.cluster.ready"::equals)).hasSize(1);
        assertThat(events(auto)).contains("kubernetes.cluster.updated");
        assertThat(events(doomed).stream().filter("kubernetes.cluster.deleted"::equals)).hasSize(1);
        assertThat(events(doomed).stream().filter("kubernetes.cluster.deleting"::equals)).hasSize(1);
    }
}
