package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static com.bettercompute.bootstrap.e2e.RunningServer.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded default, whole: the API, the reconciler and the in-process GKE simulator with one-second
 * operations. Clusters go from pending to ready, change, fail and are deleted, with the spec's events.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReconcilerEndToEndTest {
    static final Duration PATIENCE = Duration.ofSeconds(60);
    RunningServer server;

    @BeforeAll
    void start() {
        server = RunningServer.withReconciler(h2(), 1);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    JsonNode get(String id) {
        return server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
    }

    /** Polls get until the cluster satisfies the condition (the reconciler works in the background). */
    JsonNode await(String id, Predicate<JsonNode> condition, String what) {
        Instant deadline = Instant.now().plus(PATIENCE);
        JsonNode c = get(id);
        while (!condition.test(c)) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("cluster " + id + " never became " + what + "; last seen: " + c);
            }
            pause(Duration.ofMillis(200));
            c = get(id);
        }
        return c;
    }

    static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    JsonNode awaitState(String id, String state) {
        return await(id, c -> c.get("state").asText().equals(state), state);
    }

    List<String> events(String id) {
        List<String> types = new ArrayList<>();
        for (JsonNode e : server.get("/api/events?tenantId=acme&limit=1000", ALICE).json().get("items")) {
            if (e.get("subjectId").asText().equals(id)) {
                types.add(e.get("type").asText());
            }
        }
        return types;
    }

    static Map<String, Object> autopilot(String name) {
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", name));
        body.put("mode", "autopilot");
        body.put("location", "us-central1");
        body.remove("nodePools");
        return body;
    }

    @Test
    void a_standard_cluster_reaches_ready_with_its_node_pools_then_is_deleted() {
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", "std-e2e"));
        body.put("nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 2),
                Map.of("name", "cpu", "machineType", "e2-standard-4", "nodeCount", 1)));
        String id = server.call("create", ALICE, body).json().get("id").asText();

        JsonNode ready = awaitState(id, "ready");
        assertThat(ready.get("kubernetesVersion").asText()).startsWith("1.");
        assertThat(ready.get("nodeVersion").asText()).startsWith("1.");
        assertThat(ready.get("endpoint").isNull()).isFalse();
        assertThat(ready.get("readyAt").isNull()).isFalse();
        assertThat(ready.get("nodePools").findValuesAsText("state")).containsOnly("ready");
        assertThat(events(id)).containsExactly("kubernetes.cluster.created", "kubernetes.cluster.ready");
        String providerName = ready.get("providerName").asText();
        assertThat(server.server().simulator().orElseThrow().clusters()).anyMatch(n -> n.endsWith("/" + providerName));

        server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id));
        JsonNode deleted = awaitState(id, "deleted");
        assertThat(deleted.get("deletedAt").isNull()).isFalse();
        assertThat(deleted.get("nodePools").findValuesAsText("state")).containsOnly("deleted");
        assertThat(events(id)).containsExactly("kubernetes.cluster.created", "kubernetes.cluster.ready",
                "kubernetes.cluster.deleting", "kubernetes.cluster.deleted");
        assertThat(server.server().simulator().orElseThrow().clusters()).noneMatch(n -> n.endsWith("/" + providerName));
        // its name is free again, and it billed its first started hour
        JsonNode usage = server.get("/api/usage?tenantId=acme", ALICE).json();
        assertThat(usage.get("items").findValuesAsText("clusterId")).contains(id);
        for (JsonNode r : usage.get("items")) {
            if (r.get("clusterId").asText().equals(id)) {
                assertThat(r.get("kind").asText()).isEqualTo("kubernetes.cluster.hours");
            }
        }
    }

    @Test
    void an_autopilot_cluster_reaches_ready_and_an_update_in_place_publishes_updated() {
        String id = server.call("create", ALICE, autopilot("auto-e2e")).json().get("id").asText();
        JsonNode ready = awaitState(id, "ready");
        assertThat(ready.get("nodePools")).isEmpty();

        JsonNode updating = server.call("update", ALICE, Map.of("tenantId", "acme", "clusterId", id, "releaseChannel", "rapid")).json();
        assertThat(updating.get("state").asText()).isEqualTo("updating");
        await(id, c -> c.get("state").asText().equals("ready") && c.get("releaseChannel").asText().equals("rapid"), "ready on rapid");
        await(id, c -> events(id).contains("kubernetes.cluster.updated"), "updated");

        server.call("update", ALICE, Map.of("tenantId", "acme", "clusterId", id, "authorizedNetworks", List.of("203.0.113.0/24")));
        awaitState(id, "ready");
        assertThat(events(id).stream().filter("kubernetes.cluster.updated"::equals)).hasSize(2);
    }

    @Test
    void a_version_the_provider_refuses_shows_as_error_with_its_message_and_a_good_one_recovers() {
        String id = server.call("create", ALICE, autopilot("refused-e2e")).json().get("id").asText();
        awaitState(id, "ready");
        server.call("update", ALICE, Map.of("tenantId", "acme", "clusterId", id, "version", "1.31"));
        JsonNode failed = awaitState(id, "error");
        assertThat(failed.get("message").asText()).contains("1.31");
        assertThat(events(id)).contains("kubernetes.cluster.error");

        long errors = events(id).stream().filter("kubernetes.cluster.error"::equals).count();
        long revision = get(id).get("version").asLong();
        // retries of the refused version (every 2 s here) change nothing the tenant sees
        pause(Duration.ofSeconds(5));
        assertThat(events(id).stream().filter("kubernetes.cluster.error"::equals).count()).isEqualTo(errors);

        server.call("update", ALICE, Map.of("tenantId", "acme", "clusterId", id, "version", "1.33.5-gke.1162000"));
        JsonNode upgraded = await(id, c -> c.get("state").asText().equals("ready")
                && c.get("kubernetesVersion").asText().equals("1.33.5-gke.1162000"), "ready on 1.33.5-gke.1162000");
        assertThat(upgraded.get("version").asLong()).isGreaterThan(revision);
        assertThat(upgraded.get("message").isNull()).isTrue();
    }

    @Test
    void a_cluster_deleted_behind_our_back_shows_as_error_and_is_not_recreated() {
        JsonNode created = server.call("create", ALICE, autopilot("gone-e2e")).json();
        String id = created.get("id").asText();
        awaitState(id, "ready");
        assertThat(server.server().simulator().orElseThrow()
                .deleteClusterBehindTheBack("platform-prod", "us-central1", created.get("providerName").asText())).isTrue();
        JsonNode failed = awaitState(id, "error");
        assertThat(failed.get("message").asText()).contains("deleted at the provider");
        assertThat(server.server().simulator().orElseThrow().clusters()).noneMatch(n -> n.endsWith("/" + created.get("providerName").asText()));
        // deleting it here ends it
        server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id));
        awaitState(id, "deleted");
    }

    @Test
    void an_autopilot_cluster_asked_for_in_a_zone_runs_in_its_region() {
        Map<String, Object> body = autopilot("zonal-auto-e2e");
        body.put("location", "us-central1-b");
        String id = server.call("create", ALICE, body).json().get("id").asText();
        JsonNode ready = awaitState(id, "ready");
        assertThat(ready.get("location").asText()).isEqualTo("us-central1-b");
        assertThat(server.server().simulator().orElseThrow().clusters())
                .anyMatch(n -> n.contains("/locations/us-central1/") && n.endsWith("/" + ready.get("providerName").asText()));
    }

    @Test
    void versions_answers_from_the_provider_for_a_visible_pool_and_location() {
        JsonNode v = server.call("versions", ALICE, Map.of("tenantId", "acme", "poolId", POOL, "location", "us-central1-a")).json();
        assertThat(v.get("defaultVersion").asText()).startsWith("1.");
        assertThat(v.get("validVersions")).isNotEmpty();
        assertThat(v.get("channels").fieldNames()).toIterable().contains("rapid", "regular", "stable", "extended");
        assertThat(v.get("channels").get("regular").get("validVersions")).isNotEmpty();
        assertThat(server.call("versions", ALICE, Map.of("tenantId", "acme", "poolId", POOL, "location", "asia-east1-a")).status()).isEqualTo(400);
        assertThat(server.call("versions", CAROL, Map.of("tenantId", "acme", "poolId", POOL, "location", "us-central1-a")).status()).isEqualTo(403);
        assertThat(server.call("versions", ALICE, Map.of("tenantId", "acme", "poolId", "pool_00000000000000000000000000", "location", "us-central1-a")).status()).isEqualTo(404);
    }
}
