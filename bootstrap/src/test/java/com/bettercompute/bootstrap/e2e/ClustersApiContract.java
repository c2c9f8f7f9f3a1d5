package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static com.bettercompute.bootstrap.e2e.RunningServer.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clusters API over HTTP on the real wiring, run on H2 and on PostgreSQL by the subclasses. Each
 * test uses its own cluster names, so they share one server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ClustersApiContract {
    RunningServer server;

    abstract String database();

    @BeforeAll
    void start() {
        server = RunningServer.start(database());
    }

    @AfterAll
    void stop() {
        server.close();
    }

    public static Map<String, Object> standard(String tenant, String name) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", tenant);
        body.put("poolId", POOL);
        body.put("name", name);
        body.put("mode", "standard");
        body.put("location", "us-central1-a");
        body.put("nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 2,
                "accelerators", Map.of("type", "nvidia-h100-80gb", "count", 8), "labels", Map.of("team", "ml"),
                "taints", List.of(Map.of("key", "nvidia.com/gpu", "value", "present", "effect", "NoSchedule")))));
        body.put("idempotencyKey", "key-" + name);
        return body;
    }

    @Test
    void create_list_get_update_delete_walk() {
        RunningServer.Reply created = server.call("create", ALICE, standard("acme", "walk"));
        assertThat(created.status()).isEqualTo(200);
        JsonNode c = created.json();
        String id = c.get("id").asText();
        assertThat(c.get("state").asText()).isEqualTo("pending");
        assertThat(c.get("version").asInt()).isEqualTo(1);
        assertThat(c.get("providerName").asText()).isEqualTo("bc-k-" + id.substring(4, 28));
        assertThat(c.get("nodePools").get(0).get("taints").get(0).get("key").asText()).isEqualTo("nvidia.com/gpu");
        assertThat(c.get("nodePools").get(0).get("labels").get("team").asText()).isEqualTo("ml");

        JsonNode listed = server.call("list", ALICE, Map.of("tenantId", "acme")).json();
        assertThat(listed.get("items").findValuesAsText("id")).contains(id);

        JsonNode got = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
        assertThat(got).isEqualTo(c);

        JsonNode updated = server.call("update", ALICE, Map.of("tenantId", "acme", "clusterId", id, "description", "d")).json();
        assertThat(updated.get("version").asInt()).isEqualTo(2);
        assertThat(updated.get("description").asText()).isEqualTo("d");

        JsonNode deleting = server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
        assertThat(deleting.get("state").asText()).isEqualTo("deleting");
        assertThat(deleting.get("nodePools").get(0).get("state").asText()).isEqualTo("deleting");
        assertThat(server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json()).isEqualTo(deleting);
        assertThat(server.call("update", ALICE, Map.of("tenantId", "acme", "clusterId", id, "description", "x")).code())
                .isEqualTo("INVALID_STATE");

        JsonNode events = server.get("/api/events?tenantId=acme&limit=1000", ALICE).json();
        List<String> mine = new ArrayList<>();
        for (JsonNode e : events.get("items")) {
            if (e.get("subjectId").asText().equals(id)) {
                mine.add(e.get("type").asText());
            }
        }
        assertThat(mine).containsExactly("kubernetes.cluster.created", "kubernetes.cluster.deleting");
    }

    @Test
    void every_response_has_a_request_id_and_errors_have_the_one_shape() {
        for (RunningServer.Reply r : List.of(
                server.call("create", null, "{}"),
                server.call("create", "wrong-token", "{}"),
                server.call("create", ALICE, "[1,2"),
                server.call("create", ALICE, "{\"tenantId\": 5}"),
                server.call("nope", ALICE, "{}"),
                server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", "kcl_00000000000000000000000000")),
                server.get("/api/events", ALICE))) {
            assertThat(r.requestId()).isNotBlank();
            assertThat(r.json().get("error").get("code").asText()).isNotBlank();
            assertThat(r.json().get("error").get("message").asText()).isNotBlank();
            assertThat(r.json().get("error").has("details")).isTrue();
        }
        assertThat(server.call("create", null, "{}").status()).isEqualTo(401);
        assertThat(server.call("create", ALICE, "{\"tenantId\": 5}").status()).isEqualTo(400);
        assertThat(server.call("create", ALICE, "{\"tenantId\": 5}").json().at("/error/details/fields/0/field").asText()).isEqualTo("tenantId");
        assertThat(server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", "kcl_00000000000000000000000000")).status()).isEqualTo(404);
        assertThat(server.call("create", ALICE, standard("acme", "metal").entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getKey().equals("poolId") ? "pool_01hzx8k3v4w5y6z7a8b9c0d1e6" : e.getValue()))).status())
                .isEqualTo(422);
        assertThat(server.call("list", ALICE, Map.of("tenantId", "acme")).requestId()).isNotBlank();
    }

    @Test
    void a_second_tenants_principal_sees_nothing_of_the_first() {
        String id = server.call("create", ALICE, standard("acme", "isolated")).json().get("id").asText();
        assertThat(server.call("list", CAROL, Map.of("tenantId", "acme")).status()).isEqualTo(403);
        assertThat(server.call("get", CAROL, Map.of("tenantId", "acme", "clusterId", id)).status()).isEqualTo(403);
        assertThat(server.call("get", CAROL, Map.of("tenantId", "globex", "clusterId", id)).status()).isEqualTo(404);
        assertThat(server.call("update", CAROL, Map.of("tenantId", "acme", "clusterId", id, "description", "x")).status()).isEqualTo(403);
        assertThat(server.call("delete", CAROL, Map.of("tenantId", "acme", "clusterId", id)).status()).isEqualTo(403);
        JsonNode globexList = server.call("list", CAROL, Map.of("tenantId", "globex", "includeDeleted", true)).json();
        assertThat(globexList.get("items").findValuesAsText("tenantId")).doesNotContain("acme");
        assertThat(server.get("/api/events?tenantId=acme", CAROL).status()).isEqualTo(403);
        assertThat(server.get("/api/events?tenantId=globex&limit=1000", CAROL).json().get("items").findValuesAsText("subjectId")).doesNotContain(id);
        assertThat(server.get("/api/events?limit=1000", OPS).json().get("items").findValuesAsText("subjectId")).contains(id);
    }

    @Test
    void concurrent_creates_keep_names_unique_and_the_quota_exact() throws Exception {
        // globex may hold 3 clusters; 12 callers race for 6 names, two callers per name; at the same time 12 of
        // acme's callers race for 6 other names (acme's groups may be in flight beside globex's)
        List<Callable<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Map<String, Object> globex = new LinkedHashMap<>(standard("globex", "race-" + (i % 6)));
            globex.put("idempotencyKey", "race-key-" + i);
            calls.add(() -> server.call("create", CAROL, globex).status());
            Map<String, Object> acme = new LinkedHashMap<>(standard("acme", "race-" + (i % 6)));
            acme.put("idempotencyKey", "acme-race-key-" + i);
            calls.add(() -> -server.call("create", ALICE, acme).status());
        }
        ExecutorService pool = Executors.newFixedThreadPool(24);
        List<Integer> statuses = new ArrayList<>();
        try {
            for (Future<Integer> f : pool.invokeAll(calls)) {
                statuses.add(f.get());
            }
        } finally {
            pool.shutdown();
        }
        // globex's answers are positive, acme's negative
        assertThat(statuses).containsOnly(200, 409, 429, -200, -409);
        assertThat(statuses.stream().filter(s -> s == 200)).hasSize(3);
        assertThat(statuses.stream().filter(s -> s == -200)).hasSize(6);
        assertThat(names(CAROL, "globex")).hasSize(3).doesNotHaveDuplicates();
        assertThat(names(ALICE, "acme")).filteredOn(n -> n.startsWith("race-")).hasSize(6).doesNotHaveDuplicates();
    }

    private List<String> names(String principal, String tenant) {
        JsonNode list = server.call("list", principal, Map.of("tenantId", tenant)).json();
        List<String> names = new ArrayList<>();
        list.get("items").forEach(item -> names.add(item.get("name").asText()));
        return names;
    }
}
