package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded default — the server with its in-process GKE simulator, both keeping their state under
 * {@code ./data} — killed with SIGKILL at random moments while clusters and node pools are created,
 * updated and deleted through the API, and started again on the same data each time. Once the reconciler
 * has converged, the provider (the simulator's GKE API, as it serves it after the last restart) holds:
 * no orphan (a cluster no live row owns), no duplicate (two provider clusters for one row), and nothing
 * lost (every acknowledged create there and RUNNING with its acknowledged pools and channel; every
 * acknowledged delete gone).
 *
 * <p>The server runs with its working directory in a temp directory and no {@code --data-dir}, so the
 * simulator's state is in its default place, and no {@code --db}, so the database is the embedded default
 * too (a PostgreSQL the server starts under {@code ./data/postgres}, which a kill leaves running and the
 * next start stops and restarts). {@code -Dprovider-crash.db=test-postgres} runs the database on the test
 * PostgreSQL instead.
 */
class ProviderSurvivesCrashTest {
    static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    static final Pattern SIMULATOR = ServerProcess.SIMULATOR;
    static final Pattern RESTORED = Pattern.compile("gke simulator: (\\d+) clusters and \\d+ operations restored");
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The killed servers' logs, kept for a person to read after a failure. */
    static final Path LOG = Path.of("target", "provider-crash-server.log").toAbsolutePath();
    static final String PROJECT = "platform-prod";
    static final int CYCLES = 5;
    static final int MAX_LIVE = 5;

    @TempDir
    Path work;

    Process process;
    int starts;
    String base;
    String simulatorRest;
    final ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();

    /** What the API acknowledged, and the one call the last kill left without an answer (to be sent again). */
    final Map<String, String> created = new LinkedHashMap<>();
    final Set<String> deleted = new LinkedHashSet<>();
    final Set<String> onRapid = new LinkedHashSet<>();
    final Map<String, Set<String>> pools = new HashMap<>();
    final List<Runnable> unanswered = new ArrayList<>();
    int names;

    @AfterEach
    void stop() throws IOException {
        killer.shutdownNow();
        if (process != null) {
            process.destroyForcibly();
            process.onExit().join();
        }
        if (work != null) {
            ServerProcess.stopEmbeddedPostgres(work);
        }
        Files.deleteIfExists(LOG);
        for (int i = 0; i < starts; i++) {
            Files.write(LOG, Files.readAllBytes(work.resolve("server-" + i + ".log")), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    /** How many clusters the simulator found in its state at each start, from the servers' logs. */
    List<Integer> restored() throws IOException {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < starts; i++) {
            Matcher m = RESTORED.matcher(Files.readString(work.resolve("server-" + i + ".log")));
            if (m.find()) {
                out.add(Integer.parseInt(m.group(1)));
            }
        }
        return out;
    }

    void startServer(Path catalog, String database) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, "com.bettercompute.bootstrap.Main",
                "--port", "0", "--catalog", catalog.toString(), "--sim-operation-seconds", "1",
                "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "2", "--replica-id", "provider-crash-test"));
        if (database != null) {
            command.addAll(List.of("--db", database));
        }
        Path log = work.resolve("server-" + starts++ + ".log");
        process = new ProcessBuilder(command).directory(work.toFile()).redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Instant deadline = Instant.now().plusSeconds(240);
        String line;
        while ((line = out.readLine()) != null && Instant.now().isBefore(deadline)) {
            Matcher simulator = SIMULATOR.matcher(line);
            if (simulator.find()) {
                simulatorRest = simulator.group(1);
            }
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                base = "http://127.0.0.1:" + m.group(1);
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // keep the pipe empty
                        }
                    } catch (IOException ignored) {
                        // the process was killed
                    }
                });
                drain.setDaemon(true);
                drain.start();
                assertThat(simulatorRest).as("the embedded simulator's banner").isNotNull();
                return;
            }
        }
        throw new AssertionError("the server did not start; see " + LOG + " after the test");
    }

    void kill() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** The reply, or null when the server died before answering (the call may or may not have taken effect). */
    JsonNode call(String resource, String method, Map<String, Object> body) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/compute/" + resource + "/" + method))
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + RunningServer.ALICE).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
            HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json = JSON.readTree(r.body());
            return r.statusCode() == 200 ? json : JSON.createObjectNode().put("refused", r.statusCode()).set("body", json);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static boolean answered(JsonNode reply) {
        return reply != null && !reply.has("refused");
    }

    JsonNode get(String id) {
        JsonNode c = call("kubernetesClusters", "get", Map.of("tenantId", "acme", "clusterId", id));
        assertThat(answered(c)).as("get " + id + ": " + c).isTrue();
        return c;
    }

    List<String> live() {
        List<String> out = new ArrayList<>(created.keySet());
        out.removeAll(deleted);
        return out;
    }

    // ---------------------------------------------------------------- the workload: one call each, sent again when unanswered

    void create() {
        String name = "crash-" + names++;
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", name));
        body.put("nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 1)));
        send("kubernetesClusters", "create", body, reply -> created.put(reply.get("id").asText(), name));
    }

    void update(String id) {
        send("kubernetesClusters", "update", Map.of("tenantId", "acme", "clusterId", id, "releaseChannel", "rapid"), reply -> onRapid.add(id));
    }

    void addPool(String id) {
        send("kubernetesNodePools", "create", Map.of("tenantId", "acme", "clusterId", id, "name", "cpu", "machineType", "e2-standard-4",
                "nodeCount", 1, "idempotencyKey", "cpu-" + id), reply -> pools.computeIfAbsent(id, k -> new LinkedHashSet<>()).add("cpu"));
    }

    void delete(String id) {
        send("kubernetesClusters", "delete", Map.of("tenantId", "acme", "clusterId", id), reply -> deleted.add(id));
    }

    /**
     * Sends a call and notes what it acknowledged. A call the kill left unanswered is sent again, the same,
     * after the restart (each is idempotent: creates carry their key), and noted if that one is acknowledged;
     * a refusal (a pool on a cluster not ready yet…) acknowledges nothing.
     */
    void send(String resource, String method, Map<String, Object> body, java.util.function.Consumer<JsonNode> acknowledged) {
        JsonNode reply = call(resource, method, body);
        if (reply == null) {
            unanswered.add(() -> {
                JsonNode again = call(resource, method, body);
                if (answered(again)) {
                    acknowledged.accept(again);
                }
            });
        } else if (answered(reply)) {
            acknowledged.accept(reply);
        }
    }

    /** Calls until the server dies under it. */
    void drive(Random random) throws InterruptedException {
        while (unanswered.isEmpty() && process.isAlive()) {
            List<String> live = live();
            int pick = random.nextInt(10);
            if (live.size() < MAX_LIVE && (pick < 4 || live.isEmpty())) {
                create();
            } else if (pick < 6) {
                update(live.get(random.nextInt(live.size())));
            } else if (pick < 8) {
                String id = live.get(random.nextInt(live.size()));
                if (!pools.containsKey(id)) {
                    addPool(id);
                }
            } else {
                delete(live.get(random.nextInt(live.size())));
            }
            Thread.sleep(random.nextInt(150));
        }
    }

    @Test
    void killed_at_random_moments_the_provider_keeps_every_acknowledged_cluster_once_and_nothing_else() throws Exception {
        Path catalog = RunningServer.catalogFile();
        String database = "test-postgres".equals(System.getProperty("provider-crash.db")) ? RunningServer.postgres() : null;
        Random random = new Random(Long.getLong("provider-crash.seed", 7));
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            startServer(catalog, database);
            unanswered.forEach(Runnable::run);
            unanswered.clear();
            Process current = process;
            killer.schedule(() -> current.destroyForcibly(), 2000 + random.nextInt(6000), TimeUnit.MILLISECONDS);
            drive(random);
            kill();
        }
        startServer(catalog, database);
        unanswered.forEach(Runnable::run);
        unanswered.clear();

        Instant deadline = Instant.now().plusSeconds(240);
        while (!converged()) {
            assertThat(Instant.now()).as("converged by " + deadline + ": " + states()).isBefore(deadline);
            Thread.sleep(500);
        }

        Map<String, JsonNode> atProvider = providerClusters();
        for (String id : created.keySet()) {
            JsonNode row = get(id);
            String providerName = row.get("providerName").asText();
            if (deleted.contains(id)) {
                assertThat(row.get("state").asText()).as(id).isEqualTo("deleted");
                assertThat(atProvider).as("an acknowledged delete is gone at the provider").doesNotContainKey(providerName);
                continue;
            }
            JsonNode cluster = atProvider.get(providerName);
            assertThat(cluster).as("an acknowledged create of " + id + " is at the provider").isNotNull();
            assertThat(cluster.get("status").asText()).isEqualTo("RUNNING");
            List<String> poolNames = cluster.get("nodePools").findValuesAsText("name");
            assertThat(poolNames).as("pools of " + providerName).contains("gpu").containsAll(pools.getOrDefault(id, Set.of()));
            if (onRapid.contains(id)) {
                assertThat(cluster.get("releaseChannel").get("channel").asText()).as("channel of " + providerName).isEqualTo("RAPID");
            }
        }
        List<String> owners = new ArrayList<>();
        for (JsonNode row : listed()) {
            if (!row.get("state").asText().equals("deleted")) {
                owners.add(row.get("providerName").asText());
            }
        }
        assertThat(owners).as("no two rows own one provider cluster").doesNotHaveDuplicates();
        assertThat(atProvider.keySet()).as("no orphan: every provider cluster is a live row's").containsExactlyInAnyOrderElementsOf(owners);
        assertThat(created).as("the workload made clusters").hasSizeGreaterThan(CYCLES / 2);
        assertThat(restored()).as("clusters the simulator found at each start").hasSize(CYCLES + 1).anyMatch(n -> n > 0);
        System.err.println("provider crash test: " + created.size() + " creates, " + deleted.size() + " deletes, " + onRapid.size()
                + " updates, " + pools.size() + " pools acknowledged over " + CYCLES + " kills");
    }

    boolean converged() {
        for (String id : created.keySet()) {
            JsonNode row = get(id);
            String state = row.get("state").asText();
            if (deleted.contains(id) ? !state.equals("deleted") : !state.equals("ready")) {
                return false;
            }
            if (!deleted.contains(id) && onRapid.contains(id) && !row.get("releaseChannel").asText().equals("rapid")) {
                return false;
            }
            if (!deleted.contains(id) && !row.get("nodePools").findValuesAsText("state").stream().allMatch("ready"::equals)) {
                return false;
            }
        }
        return true;
    }

    /** Every cluster row of the tenant, whoever made it: a create the kill left unanswered may have made one. */
    List<JsonNode> listed() {
        JsonNode page = call("kubernetesClusters", "list", Map.of("tenantId", "acme"));
        assertThat(answered(page)).as("list: " + page).isTrue();
        List<JsonNode> rows = new ArrayList<>();
        page.get("items").forEach(rows::add);
        return rows;
    }

    Map<String, String> states() {
        Map<String, String> out = new LinkedHashMap<>();
        created.keySet().forEach(id -> out.put(id, get(id).get("state").asText()));
        return out;
    }

    /** The provider as its GKE API serves it: every cluster of the project, by name. */
    Map<String, JsonNode> providerClusters() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(simulatorRest + "/v1/projects/" + PROJECT + "/locations/-/clusters"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, JsonNode> out = new LinkedHashMap<>();
        JsonNode clusters = JSON.readTree(r.body()).get("clusters");
        if (clusters != null) {
            for (JsonNode c : clusters) {
                assertThat(out.put(c.get("name").asText(), c)).as("one provider cluster per name").isNull();
            }
        }
        return out;
    }
}
