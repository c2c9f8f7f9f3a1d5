package com.bettercompute.adapters.http;

import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.domain.market.MarketSnapshot;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of generated malformed requests (seeded) to every market route, tenant's and operator's: none
 * may produce a 500; every answer carries {@code X-Request-Id}; every refusal has the one error body with a
 * status of API.md's table; and a refused call leaves the market exactly as it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MarketMalformedRequestsTest {
    static final long SEED = Long.getLong("malformed.seed", 20261201L);
    static final int MUTATIONS = 400;
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<Integer, String> STATUSES = Map.of(200, "", 400, "INVALID_INPUT", 401, "UNAUTHENTICATED",
            403, "ACCESS_DENIED", 404, "NOT_FOUND", 409, "CONFLICT|INVALID_STATE", 422, "UNSUPPORTED", 429, "QUOTA_EXCEEDED");

    record Route(String method, String path, String token, Map<String, Object> valid) {}

    static final List<Route> BODY_ROUTES = List.of(
            new Route("PUT", "/api/k8s/bid", MarketWorld.ALICE, map("cluster", "train", "limit_price", "2.40")),
            new Route("PUT", "/api/operator/market/reserve", MarketWorld.OPS, map("pool", MarketWorld.POOL, "reserve", "1.30")),
            new Route("POST", "/api/operator/market/supply", MarketWorld.OPS, map("pool", MarketWorld.POOL, "add", 1)),
            new Route("POST", "/api/operator/market/nodes/out-of-service", MarketWorld.OPS, map("node", "us-central1-h100-8x-0001")),
            new Route("POST", "/api/operator/market/nodes/back", MarketWorld.OPS, map("node", "us-central1-h100-8x-0001")),
            new Route("POST", "/api/operator/market/credits", MarketWorld.OPS,
                    map("org", "acme", "amount", "10", "note", "n", "idempotency_key", "key-1")),
            new Route("PUT", "/api/operator/market/clusters", MarketWorld.OPS, map("cluster_id", MarketWorld.ACME_TRAIN,
                    "max_cluster_gpus", 32, "packing", true, "block", map("pool", MarketWorld.POOL, "nodes", 0))));

    static final List<Route> QUERY_ROUTES = List.of(
            new Route("GET", "/api/k8s/bid", MarketWorld.ALICE, map("cluster", "train")),
            new Route("DELETE", "/api/k8s/bid", MarketWorld.ALICE, map("cluster", "train")),
            new Route("GET", "/api/k8s/requests", MarketWorld.DAVE, map("cluster", "train")),
            new Route("GET", "/api/k8s/market/feed", MarketWorld.CAROL, map("pool", MarketWorld.POOL, "after", "0", "limit", "5")),
            new Route("GET", "/api/k8s/balance", MarketWorld.DAVE, map("org", "acme")),
            new Route("DELETE", "/api/operator/market/clusters", MarketWorld.OPS, map("cluster_id", "kcl_nosuch")),
            new Route("GET", "/api/usage", MarketWorld.DAVE, map("tenantId", "acme", "limit", "10")));

    static final List<Object> ODD_VALUES = List.of("", " ", "-1", "1e3", "0x10", "NaN", "2.4000001", "99999999999999999999999",
            "\u0000", "\ud800", "é", "../..", "a/b/c", "%zz", "x".repeat(5000), -1, 0, 1.5, Long.MAX_VALUE,
            new java.math.BigInteger("1" + "0".repeat(40)), true, false, List.of(), List.of(1, 2), Map.of(), Map.of("a", 1));

    MarketApiWorld api;
    MalformedClient client;

    @BeforeAll
    void start() {
        api = new MarketApiWorld();
        client = new MalformedClient(api.port);
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void an_empty_object_names_exactly_the_required_fields_of_each_body() {
        for (Route route : BODY_ROUTES) {
            MalformedClient.Response r = client.send(route.method(), route.path(), route.token(), "application/json", "{}".getBytes());
            assertThat(r.status()).as(route.path()).isEqualTo(400);
            List<String> named = new ArrayList<>();
            json(r).at("/error/details/fields").forEach(f -> named.add(f.get("field").asText()));
            Request.Body<?> body = api.server.routes().stream().filter(x -> x.path().equals(route.path())
                    && x.httpMethod().equalsIgnoreCase(route.method())).findFirst().orElseThrow().body();
            List<String> required = body.schema().props().stream().filter(Schema.Prop::required).map(Schema.Prop::name).toList();
            assertThat(named).as(route.path()).containsAll(required);
            assertThat(named).as(route.path()).allMatch(n -> required.contains(n) || n.equals("add"));
        }
    }

    @Test
    void no_malformed_market_request_gets_a_500_or_leaves_anything_behind() {
        Random random = new Random(SEED);
        List<String> failures = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        int cases = 0;
        for (Route route : BODY_ROUTES) {
            for (int i = 0; i < MUTATIONS; i++) {
                byte[] body = mutatedBody(route, random);
                String token = random.nextInt(10) == 0 ? pickToken(random) : route.token();
                cases++;
                check(route.method(), route.path(), token, body, failures, statuses);
            }
        }
        for (Route route : QUERY_ROUTES) {
            for (int i = 0; i < MUTATIONS / 2; i++) {
                String query = mutatedQuery(route, random);
                cases++;
                check(route.method(), route.path() + query, random.nextInt(10) == 0 ? pickToken(random) : route.token(),
                        null, failures, statuses);
            }
        }
        assertThat(cases).isGreaterThan(3500);
        assertThat(failures).as("%d failures among %d cases, statuses %s", failures.size(), cases, statuses).isEmpty();
        assertThat(statuses.keySet()).contains("400", "401", "403", "404");
    }

    private void check(String method, String pathAndQuery, String token, byte[] body, List<String> failures,
                       Map<String, Integer> statuses) {
        MarketSnapshot before = api.w.markets.load().snapshot();
        MalformedClient.Response r = client.send(method, pathAndQuery, token, "application/json", body == null ? new byte[0] : body);
        statuses.merge(String.valueOf(r.status()), 1, Integer::sum);
        String label = method + " " + shorten(pathAndQuery) + " " + (body == null ? "" : shorten(new String(body, StandardCharsets.UTF_8)));
        if (r.failure() != null || !STATUSES.containsKey(r.status())) {
            failures.add(label + " -> " + r.status() + " " + r.failure());
            return;
        }
        if (r.headers().get("x-request-id") == null) {
            failures.add(label + " -> no X-Request-Id");
        }
        if (r.status() == 200) {
            return;
        }
        JsonNode error = json(r).get("error");
        if (error == null || !STATUSES.get(r.status()).contains(error.path("code").asText("?"))
                || error.path("message").asText().isEmpty()) {
            failures.add(label + " -> " + r.status() + " " + shorten(r.text()));
        }
        if (!api.w.markets.load().snapshot().equals(before)) {
            failures.add(label + " -> refused with " + r.status() + " but changed the market");
        }
    }

    private static byte[] mutatedBody(Route route, Random random) {
        int kind = random.nextInt(12);
        switch (kind) {
            case 0:
                return pick(random, List.of("", "[]", "null", "1", "\"x\"", "{", "{\"a\":", "{}}", "{\"cluster\":\"a\",\"cluster\":\"b\"}",
                        "[".repeat(100) + "]".repeat(100), "\u0000", "{\"x\": 1}".repeat(3))).getBytes(StandardCharsets.UTF_8);
            case 1: {
                byte[] bytes = new byte[random.nextInt(64)];
                random.nextBytes(bytes);
                return bytes;
            }
            default: {
                Map<String, Object> body = deepCopy(route.valid());
                List<String> keys = new ArrayList<>(body.keySet());
                String key = keys.get(random.nextInt(keys.size()));
                switch (kind) {
                    case 2 -> body.remove(key);
                    case 3 -> body.put(key, null);
                    case 4 -> body.put("unknown_" + random.nextInt(3), 1);
                    case 5 -> {
                        if (body.get("block") instanceof Map<?, ?> block) {
                            @SuppressWarnings("unchecked")
                            Map<String, Object> b = (Map<String, Object>) block;
                            b.put(random.nextBoolean() ? "pool" : "nodes", pick(random, ODD_VALUES));
                            if (random.nextBoolean()) {
                                b.put("extra", 1);
                            }
                        } else {
                            body.put(key, pick(random, ODD_VALUES));
                        }
                    }
                    default -> body.put(key, pick(random, ODD_VALUES));
                }
                try {
                    return JSON.writeValueAsBytes(body);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static String mutatedQuery(Route route, Random random) {
        Map<String, String> params = new LinkedHashMap<>();
        route.valid().forEach((k, v) -> params.put(k, String.valueOf(v)));
        List<String> keys = new ArrayList<>(params.keySet());
        String key = keys.get(random.nextInt(keys.size()));
        StringBuilder q = new StringBuilder("?");
        switch (random.nextInt(6)) {
            case 0 -> params.remove(key);
            case 1 -> params.put(key, pick(random, List.of("", "%zz", "%", "%C3%28", "-1", "99999999999999999999", "A%20B",
                    "x".repeat(3000), "a/b/c", "%00", "1.5", "train%0A")));
            case 2 -> params.put("unknown", "1");
            case 3 -> {
                q.append(key).append("=1&");
            }
            case 4 -> params.put(key, String.valueOf(random.nextLong()));
            default -> params.put(key, Integer.toString(random.nextInt(100)));
        }
        params.forEach((k, v) -> q.append(k).append('=').append(v).append('&'));
        return q.toString();
    }

    private static String pickToken(Random random) {
        return pick(random, java.util.Arrays.asList(null, "", "nope", MarketWorld.CAROL, MarketWorld.DAVE, MarketWorld.OPS));
    }

    private static <T> T pick(Random random, List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> deepCopy(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v instanceof Map<?, ?> inner ? deepCopy((Map<String, Object>) inner) : v));
        return out;
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static JsonNode json(MalformedClient.Response r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static String shorten(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
