package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static com.bettercompute.bootstrap.e2e.RunningServer.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * kubernetesNodePools over HTTP on the embedded default (the reconciler and the in-process GKE simulator with
 * one-second operations): a pool is added to a ready cluster, resized, relabeled, autoscaled and removed, and
 * {@code gcloud container node-pools list/describe} against the simulator shows what really happened at the
 * provider. Without gcloud on PATH the API part still runs and the provider checks are skipped, saying so.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodePoolsEndToEndTest {
    static final Duration PATIENCE = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();
    /** Every exchange is also checked against the served OpenAPI document. */
    static final HttpClient HTTP = com.bettercompute.adapters.http.contract.CheckedHttpClient.of(HttpClient.newHttpClient());
    RunningServer server;
    String gcloud;
    @TempDir
    Path home;

    @BeforeAll
    void start() {
        server = RunningServer.withReconciler(h2(), 1);
        gcloud = Programs.find("gcloud").orElse(null);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void a_pool_is_added_resized_relabeled_autoscaled_and_removed_at_the_provider() throws Exception {
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", "pools-e2e"));
        body.put("nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 2)));
        JsonNode cluster = server.call("create", ALICE, body).json();
        String clusterId = cluster.get("id").asText();
        String providerName = cluster.get("providerName").asText();
        String location = cluster.get("location").asText();
        awaitCluster(clusterId, "ready");

        // add
        Map<String, Object> add = new LinkedHashMap<>();
        add.put("tenantId", "acme");
        add.put("clusterId", clusterId);
        add.put("name", "cpu");
        add.put("machineType", "e2-standard-4");
        add.put("nodeCount", 1);
        add.put("labels", Map.of("team", "ml"));
        add.put("idempotencyKey", "add-cpu");
        Reply created = pools("create", add);
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String poolId = created.json().get("id").asText();
        assertThat(poolId).matches("knp_[0-9a-hjkmnp-tv-z]{26}");
        assertThat(created.json().get("state").asText()).isEqualTo("pending");
        assertThat(pools("create", add).json().get("id").asText()).isEqualTo(poolId);
        Map<String, Object> ref = Map.of("tenantId", "acme", "clusterId", clusterId, "nodePoolId", poolId);
        JsonNode ready = awaitPool(ref, p -> p.get("state").asText().equals("ready"), "ready");
        awaitCluster(clusterId, "ready");
        List<String> names = gcloud("node-pools", "list", "--cluster", providerName, "--zone", location, "--format=value(name)");
        if (names != null) {
            assertThat(names).containsExactlyInAnyOrder("gpu", "bc-cpu-worker", "cpu");
            JsonNode described = describe(providerName, location, "cpu");
            assertThat(described.get("initialNodeCount").asInt()).isEqualTo(1);
            assertThat(described.get("config").get("machineType").asText()).isEqualTo("e2-standard-4");
            assertThat(described.get("config").get("labels").get("team").asText()).isEqualTo("ml");
        }

        // resize
        JsonNode resizing = pools("update", with(ref, "nodeCount", 3)).json();
        assertThat(resizing.get("version").asLong()).isEqualTo(ready.get("version").asLong() + 1);
        assertThat(resizing.get("state").asText()).isEqualTo("updating");
        awaitPool(ref, p -> p.get("state").asText().equals("ready"), "ready after the resize");
        if (gcloud != null) {
            assertThat(describe(providerName, location, "cpu").get("initialNodeCount").asInt()).isEqualTo(3);
        }

        // relabel and taint
        pools("update", with(ref, "labels", Map.of("team", "infra", "tier", "batch"),
                "taints", List.of(Map.of("key", "dedicated", "value", "batch", "effect", "NoSchedule"))));
        awaitPool(ref, p -> p.get("state").asText().equals("ready"), "ready after relabeling");
        if (gcloud != null) {
            JsonNode config = describe(providerName, location, "cpu").get("config");
            assertThat(config.get("labels").get("team").asText()).isEqualTo("infra");
            assertThat(config.get("labels").get("tier").asText()).isEqualTo("batch");
            assertThat(config.get("taints").get(0).get("key").asText()).isEqualTo("dedicated");
            assertThat(config.get("taints").get(0).get("effect").asText()).isEqualTo("NO_SCHEDULE");
        }

        // autoscaling on, then off ("autoscaling": null)
        pools("update", with(ref, "autoscaling", Map.of("minNodes", 1, "maxNodes", 4)));
        awaitPool(ref, p -> p.get("state").asText().equals("ready"), "ready with autoscaling");
        if (gcloud != null) {
            JsonNode autoscaling = describe(providerName, location, "cpu").get("autoscaling");
            assertThat(autoscaling.get("enabled").asBoolean()).isTrue();
            assertThat(autoscaling.get("maxNodeCount").asInt()).isEqualTo(4);
        }
        Map<String, Object> off = new HashMap<>(ref);
        off.put("autoscaling", null);
        assertThat(pools("update", off).json().get("autoscaling").isNull()).isTrue();
        awaitPool(ref, p -> p.get("state").asText().equals("ready"), "ready without autoscaling");
        if (gcloud != null) {
            JsonNode autoscaling = describe(providerName, location, "cpu").get("autoscaling");
            assertThat(autoscaling == null || !autoscaling.path("enabled").asBoolean()).isTrue();
        }

        // remove
        JsonNode deleting = pools("delete", ref).json();
        assertThat(deleting.get("state").asText()).isEqualTo("deleting");
        JsonNode deleted = awaitPool(ref, p -> p.get("state").asText().equals("deleted"), "deleted");
        assertThat(deleted.get("name").asText()).isEqualTo("cpu");
        awaitCluster(clusterId, "ready");
        JsonNode listed = pools("list", Map.of("tenantId", "acme", "clusterId", clusterId)).json();
        assertThat(listed.get("items").findValuesAsText("name")).containsExactly("gpu", "bc-cpu-worker");
        JsonNode all = pools("list", Map.of("tenantId", "acme", "clusterId", clusterId, "includeDeleted", true)).json();
        assertThat(all.get("items").findValuesAsText("name")).containsExactly("gpu", "bc-cpu-worker", "cpu");
        // the last pool of a standard cluster stays
        String gpuId = all.get("items").get(0).get("id").asText();
        Reply last = pools("delete", Map.of("tenantId", "acme", "clusterId", clusterId, "nodePoolId", gpuId));
        assertThat(last.status()).isEqualTo(409);
        assertThat(last.code()).isEqualTo("INVALID_STATE");

        assertThat(events(poolId)).containsExactly("kubernetes.nodepool.created", "kubernetes.nodepool.ready",
                "kubernetes.nodepool.updated", "kubernetes.nodepool.updated", "kubernetes.nodepool.updated",
                "kubernetes.nodepool.updated", "kubernetes.nodepool.deleting", "kubernetes.nodepool.deleted");
        List<String> after = gcloud("node-pools", "list", "--cluster", providerName, "--zone", location, "--format=value(name)");
        Assumptions.assumeTrue(after != null, "gcloud is not on PATH: the API part ran, the provider-side checks were skipped");
        assertThat(after).containsExactlyInAnyOrder("gpu", "bc-cpu-worker");
    }

    @Test
    void refusals_over_http_carry_the_api_codes() {
        Map<String, Object> auto = new LinkedHashMap<>(ClustersApiContract.standard("acme", "pools-auto-e2e"));
        auto.put("mode", "autopilot");
        auto.put("location", "us-central1");
        auto.remove("nodePools");
        String autoId = server.call("create", ALICE, auto).json().get("id").asText();
        Map<String, Object> add = Map.of("tenantId", "acme", "clusterId", autoId, "name", "cpu", "machineType", "e2-standard-4",
                "nodeCount", 1, "idempotencyKey", "k1");
        assertThat(pools("create", add).code()).isEqualTo("UNSUPPORTED");
        assertThat(pools("create", with(add, "colour", "red")).code()).isEqualTo("INVALID_INPUT");
        Reply noAuth = send("create", null, add);
        assertThat(noAuth.status()).isEqualTo(401);
        assertThat(send("list", DAVE, Map.of("tenantId", "acme", "clusterId", autoId)).status()).isEqualTo(200);
        assertThat(send("create", DAVE, add).code()).isEqualTo("ACCESS_DENIED");
        assertThat(pools("get", Map.of("tenantId", "acme", "clusterId", autoId, "nodePoolId", "knp_00000000000000000000000000")).code())
                .isEqualTo("NOT_FOUND");
    }

    // ---------------------------------------------------------------- HTTP

    record Reply(int status, JsonNode json, String text) {
        String code() {
            return json == null || !json.has("error") ? null : json.get("error").get("code").asText();
        }
    }

    Reply pools(String method, Map<String, Object> body) {
        return send(method, ALICE, body);
    }

    Reply send(String method, String token, Map<String, Object> body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/api/compute/kubernetesNodePools/" + method))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json;
            try {
                json = JSON.readTree(r.body());
            } catch (IOException notJson) {
                json = null;
            }
            return new Reply(r.statusCode(), json, r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Object> with(Map<String, Object> base, Object... more) {
        Map<String, Object> m = new LinkedHashMap<>(base);
        for (int i = 0; i < more.length; i += 2) {
            m.put((String) more[i], more[i + 1]);
        }
        return m;
    }

    JsonNode awaitPool(Map<String, Object> ref, Predicate<JsonNode> condition, String what) {
        return await(() -> pools("get", ref).json(), condition, "node pool " + ref.get("nodePoolId") + " " + what);
    }

    void awaitCluster(String id, String state) {
        await(() -> server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json(),
                c -> c.get("state").asText().equals(state), "cluster " + id + " " + state);
    }

    static JsonNode await(java.util.function.Supplier<JsonNode> read, Predicate<JsonNode> condition, String what) {
        Instant deadline = Instant.now().plus(PATIENCE);
        JsonNode seen = read.get();
        while (!condition.test(seen)) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError(what + " never came; last seen: " + seen);
            }
            ReconcilerEndToEndTest.pause(Duration.ofMillis(200));
            seen = read.get();
        }
        return seen;
    }

    List<String> events(String subjectId) {
        List<String> types = new ArrayList<>();
        for (JsonNode e : server.get("/api/events?tenantId=acme&limit=1000", ALICE).json().get("items")) {
            if (e.get("subjectId").asText().equals(subjectId)) {
                types.add(e.get("type").asText());
            }
        }
        return types;
    }

    // ---------------------------------------------------------------- gcloud against the simulator

    JsonNode describe(String cluster, String location, String pool) throws Exception {
        List<String> out = gcloud("node-pools", "describe", pool, "--cluster", cluster, "--zone", location, "--format=json");
        return JSON.readTree(String.join("\n", out));
    }

    /** Runs {@code gcloud container ARGS} on the platform's project at the simulator; null when gcloud is absent. */
    List<String> gcloud(String... args) throws IOException, InterruptedException {
        if (gcloud == null) {
            return null;
        }
        List<String> command = new ArrayList<>(List.of(gcloud, "container"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("CLOUDSDK_") || k.equals("KUBECONFIG") || k.startsWith("GOOGLE_"));
        String rest = server.server().simulator().orElseThrow().restUrl();
        env.put("CLOUDSDK_CONFIG", home.resolve("gcloud").toString());
        env.put("KUBECONFIG", home.resolve("kubeconfig").toString());
        env.put("CLOUDSDK_CORE_PROJECT", "platform-prod");
        env.put("CLOUDSDK_CORE_DISABLE_PROMPTS", "1");
        env.put("CLOUDSDK_AUTH_ACCESS_TOKEN", "simulator-does-not-check");
        env.put("CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", rest + "/");
        env.put("CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE", rest + "/");
        env.put("CLOUDSDK_CORE_DISABLE_USAGE_REPORTING", "true");
        env.put("CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK", "true");
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("gcloud " + String.join(" ", args) + " did not finish: " + Files.readString(err));
        }
        assertThat(process.exitValue()).as("gcloud %s failed:%n%s", String.join(" ", args), Files.readString(err)).isZero();
        return Files.readString(out, StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
    }

}
