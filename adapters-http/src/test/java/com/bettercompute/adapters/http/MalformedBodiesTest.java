package com.bettercompute.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over ten thousand generated malformed requests ({@link MalformedBodies}, seeded) to every method of the
 * clusters API and to {@code GET /api/events}, on the HTTP adapter over the use cases on in-memory fakes
 * ({@link ApiWorld}): none may produce a 500; every response carries
 * {@code X-Request-Id} and the one error body; each status is the one {@code API.md}'s table gives its code,
 * and the one the case expects (400 for bad input with a valid token, 401 without one); a broken field is
 * named in {@code details.fields}; and no refused call leaves a cluster or an event behind. What the HTTP server itself
 * refuses (a malformed path, a URI or headers too large) answers in the same error body.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedBodiesTest {
    /** Fixed, so a failure repeats; {@code -Dmalformed.seed=N} explores other cases. */
    static final long SEED = Long.getLong("malformed.seed", 20261130L);
    static final Map<String, Integer> TABLE = Map.ofEntries(Map.entry("INVALID_INPUT", 400), Map.entry("UNAUTHENTICATED", 401),
            Map.entry("ACCESS_DENIED", 403), Map.entry("NOT_FOUND", 404), Map.entry("CONFLICT", 409), Map.entry("INVALID_STATE", 409),
            Map.entry("UNSUPPORTED", 422), Map.entry("QUOTA_EXCEEDED", 429), Map.entry("METHOD_NOT_ALLOWED", 405),
            Map.entry("REQUEST_TIMEOUT", 408), Map.entry("PAYLOAD_TOO_LARGE", 413), Map.entry("URI_TOO_LONG", 414),
            Map.entry("UNSUPPORTED_MEDIA_TYPE", 415), Map.entry("HEADERS_TOO_LARGE", 431),
            Map.entry("SERVICE_UNAVAILABLE", 503));
    /** Field mutations per method (twice as many for create): over 10,000 cases in all. */
    static final int MUTATIONS = 1300;
    static final ObjectMapper JSON = new ObjectMapper();

    ApiWorld server;
    MalformedClient client;

    @BeforeAll
    void start() {
        server = ApiWorld.start();
        client = new MalformedClient(server.port);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void no_malformed_request_gets_a_500_or_a_status_off_the_table_or_creates_anything() {
        List<MalformedBodies.Case> cases = MalformedBodies.generate(SEED, MUTATIONS);
        assertThat(cases).hasSizeGreaterThan(10_000);

        List<String> failures = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        for (MalformedBodies.Case c : cases) {
            MalformedClient.Response r = client.send(c.httpMethod(), c.path(), c.token(), c.contentType(), c.body());
            statuses.merge(c.path().startsWith("/api/events") ? "events " + r.status() : r.status() + "", 1, Integer::sum);
            String problem = check(c, r);
            if (problem != null) {
                failures.add(c.label() + " (" + c.body().length + " bytes) -> " + problem);
            }
        }
        writeDown(failures);
        assertThat(failures).as("%d failures among %d cases (all in target/malformed-failures.txt), statuses %s, the first 20",
                failures.size(), cases.size(), statuses).isEmpty();

        // nothing was created or published by any of them
        assertThat(server.call("list", ApiWorld.ALICE, Map.of("tenantId", "acme", "includeDeleted", true)).json().get("items")).isEmpty();
        assertThat(server.call("list", ApiWorld.CAROL, Map.of("tenantId", "globex", "includeDeleted", true)).json().get("items")).isEmpty();
        assertThat(server.get("/api/events?limit=1000", ApiWorld.OPS).json().get("items")).isEmpty();
    }

    @Test
    void the_generated_cases_cover_every_method_and_each_kind_of_malformation() {
        List<MalformedBodies.Case> cases = MalformedBodies.generate(SEED, MUTATIONS);
        for (String method : MalformedBodies.METHODS) {
            assertThat(cases).filteredOn(c -> c.path().endsWith("/" + method)).hasSizeGreaterThan(300);
        }
        List<String> labels = cases.stream().map(MalformedBodies.Case::label).toList();
        for (String kind : List.of("duplicate key", "trailing", "truncated", "array at top level", "corrupted bytes",
                "invalid UTF-8", "1 MB tenantId", "a body over 1 MiB", "10,000 nested", "remove", "unknown key", "=1E400",
                "=-0", "=1e309", "not an object: ", "[token none]", "events ?", "[GET]")) {
            assertThat(labels).as(kind).anyMatch(l -> l.contains(kind));
        }
        // every create body is broken, so none could create a cluster: a field, the JSON, or the size
        assertThat(cases).filteredOn(c -> c.path().endsWith("/create")).allMatch(c -> !c.statuses().contains(200));
    }

    private static void writeDown(List<String> failures) {
        try {
            failures.replaceAll(MalformedBodiesTest::printable);
            java.nio.file.Files.write(java.nio.file.Path.of("target", "malformed-failures.txt"), failures);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (failures.size() > 20) {
            failures.subList(20, failures.size()).clear();
        }
    }

    @Test
    void text_with_a_nul_or_an_unpaired_surrogate_is_refused_even_where_any_text_is_taken() {
        for (String method : List.of("create", "update")) {
            for (String text : List.of("a\u0000b", "\uD800", "x\uDC00y", "\uDE80\uD83D")) {
                Map<String, Object> body = MalformedBodies.validBody(method);
                body.put("description", text);
                MalformedClient.Response r = client.send("POST", "/api/compute/kubernetesClusters/" + method, ApiWorld.ALICE,
                        "application/json", MalformedBodies.escaped(body));
                assertThat(r.status()).as(method + " " + printable(text)).isEqualTo(400);
                assertThat(r.text()).contains("\"field\":\"description\"", "without NUL characters or unpaired surrogates");
            }
        }
        // a pair is one character, and welcome
        Map<String, Object> body = MalformedBodies.validBody("update");
        body.put("description", "\uD83D\uDE80");
        assertThat(client.send("POST", "/api/compute/kubernetesClusters/update", ApiWorld.ALICE, "application/json",
                MalformedBodies.escaped(body)).status()).isEqualTo(404);
    }

    @Test
    void a_huge_unknown_key_is_named_but_not_echoed_whole() {
        Map<String, Object> body = MalformedBodies.validBody("create");
        body.put("k".repeat(40_000), 1);
        @SuppressWarnings("unchecked")
        Map<String, Object> pool = ((List<Map<String, Object>>) body.get("nodePools")).get(0);
        pool.put("labels", Map.of("x".repeat(30_000), "v"));
        MalformedClient.Response r = client.send("POST", "/api/compute/kubernetesClusters/create", ApiWorld.ALICE,
                "application/json", MalformedBodies.escaped(body));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body().length).isLessThan(4096);
        assertThat(r.text()).contains("\"field\":\"" + "k".repeat(100) + "…(40000 characters)\"",
                "\"field\":\"nodePools[0].labels." + "x".repeat(100) + "…(30000 characters)\"");
    }

    @Test
    void a_chunked_body_is_held_to_the_same_limit_as_one_with_a_length() {
        Map<String, Object> body = MalformedBodies.validBody("create");
        body.put("description", "d".repeat(3 * 1024 * 1024));
        MalformedClient.Response big = client.sendChunked("/api/compute/kubernetesClusters/create", ApiWorld.ALICE,
                MalformedBodies.escaped(body));
        assertThat(check(new MalformedBodies.Case("chunked 3 MiB", "POST", "", new byte[0], null, null, Set.of(413), null), big)).isNull();
        assertThat(big.text()).contains("at most 1048576 bytes");

        Map<String, Object> small = MalformedBodies.validBody("get");
        small.put("clusterId", "kcl_" + "0".repeat(26));
        MalformedClient.Response ok = client.sendChunked("/api/compute/kubernetesClusters/get", ApiWorld.ALICE,
                MalformedBodies.escaped(small));
        assertThat(ok.status()).as(ok.text()).isEqualTo(404);
    }

    @Test
    void the_events_query_is_read_as_strictly_as_a_body() {
        for (String query : List.of("limit=4294967297", "limit=%EF%BC%91", "after=%zz", "limit=%", "after=1&after=2",
                "tenantId=acme&tenantId=globex", "limt=5", "after=%C0%AF")) {
            MalformedClient.Response r = client.send("GET", "/api/events?" + query + (query.contains("tenantId") ? "" : "&tenantId=acme"),
                    ApiWorld.OPS, null, new byte[0]);
            assertThat(r.status()).as(query).isEqualTo(400);
            assertThat(r.text()).contains("INVALID_INPUT");
        }
        assertThat(client.send("GET", "/api/events?after=0&limit=1000&tenantId=acme", ApiWorld.OPS, null, new byte[0]).status()).isEqualTo(200);
        assertThat(client.send("GET", "/api/events?after=0&&limit=10&", ApiWorld.OPS, null, new byte[0]).status()).isEqualTo(200);
    }

    /**
     * What the HTTP server refuses before any route reads the request (a malformed path, a URI or headers larger than
     * it reads), sent for real: the one JSON error body the served document declares, never Jetty's HTML page.
     */
    static Stream<Arguments> refusals() {
        String filler = "x".repeat(20_000);
        byte[] list = "{\"tenantId\":\"acme\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return Stream.of(
                Arguments.of("an encoded NUL in a path", "GET", "/api/k8s/balance%00", Map.of(), new byte[0], 400, "INVALID_INPUT"),
                Arguments.of("an encoded NUL before a route's name", "POST", "/api/compute/kubernetesClusters/%00list", Map.of(), list,
                        400, "INVALID_INPUT"),
                // not resolved to /api/k8s/balance: a path that names no route
                Arguments.of("an encoded dot-dot segment", "GET", "/api/compute/%2e%2e/k8s/balance", Map.of(), new byte[0], 404,
                        "NOT_FOUND"),
                Arguments.of("a query of 20,000 characters", "GET", "/api/events?tenantId=acme&filler=" + filler, Map.of(), new byte[0],
                        414, "URI_TOO_LONG"),
                Arguments.of("a URI of 20,000 characters with a body", "POST", "/api/compute/kubernetesClusters/list?" + filler, Map.of(),
                        list, 414, "URI_TOO_LONG"),
                Arguments.of("a header of 20,000 characters", "GET", "/api/events?tenantId=acme", Map.of("X-Filler", filler),
                        new byte[0], 431, "HEADERS_TOO_LARGE"),
                Arguments.of("forty headers of 500 characters", "POST", "/api/compute/kubernetesClusters/list", manyHeaders(40, 500),
                        list, 431, "HEADERS_TOO_LARGE"));
    }

    private static Map<String, String> manyHeaders(int count, int length) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            headers.put("X-Filler-" + i, "y".repeat(length));
        }
        return headers;
    }

    @ParameterizedTest(name = "{0} is {5} {6}")
    @MethodSource("refusals")
    void the_http_server_refuses_in_the_one_error_body_with_a_request_id(String label, String method, String pathAndQuery,
                                                                        Map<String, String> headers, byte[] body, int status,
                                                                        String code) throws IOException {
        MalformedClient.Response r = client.send(method, pathAndQuery, ApiWorld.ALICE, body.length > 0 ? "application/json" : null,
                headers, body);

        assertThat(r.failure()).as(label).isNull();
        assertThat(r.status()).as(label + ": " + r.text()).isEqualTo(status);
        assertThat(r.headers().get("content-type")).as(label).startsWith("application/json");
        assertThat(r.headers().get("x-request-id")).as(label).isNotBlank();
        assertThat(com.bettercompute.adapters.http.contract.ContractCheck.served("http://127.0.0.1:" + server.port).errorBodyViolations(r.body())).as(label + ": " + r.text())
                .isEmpty();
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertThat(error.get("code").asText()).as(label).isEqualTo(code);
        assertThat(error.get("message").asText()).as(label).isNotBlank();
        if (status == 400) {
            assertThat(error.at("/details/fields/0/in").asText()).as(label).isEqualTo("path");
            assertThat(error.at("/details/fields/0/problem").asText()).as(label).contains("well-formed path");
        }
    }

    /** What is wrong with the response to the case, or null. */
    private static String check(MalformedBodies.Case c, MalformedClient.Response r) {
        if (r.failure() != null) {
            return r.failure();
        }
        if (r.status() == 500) {
            return "500: " + shorten(r.text());
        }
        String requestId = r.headers().get("x-request-id");
        if (requestId == null || requestId.isBlank()) {
            return r.status() + " without X-Request-Id: " + shorten(r.text());
        }
        if (!c.statuses().contains(r.status())) {
            return "status " + r.status() + ", expected one of " + c.statuses() + ": " + shorten(r.text());
        }
        if (r.status() == 200) {
            return r.headers().getOrDefault("content-type", "").startsWith("application/json") ? null : "200 not JSON";
        }
        JsonNode json;
        try {
            json = JSON.readTree(r.body());
        } catch (IOException e) {
            return r.status() + " with a body that is not JSON: " + shorten(r.text());
        }
        if (json == null || !json.isObject() || json.size() != 1 || !json.has("error")) {
            return r.status() + " without the error body: " + shorten(r.text());
        }
        JsonNode error = json.get("error");
        Set<String> keys = new java.util.HashSet<>();
        error.fieldNames().forEachRemaining(keys::add);
        if (!keys.equals(Set.of("code", "message", "details")) || !error.get("code").isTextual()
                || !error.get("message").isTextual() || error.get("message").asText().isBlank() || !error.get("details").isObject()) {
            return r.status() + " with an error body of another shape: " + shorten(r.text());
        }
        Integer expected = TABLE.get(error.get("code").asText());
        if (expected == null || expected != r.status()) {
            return "code " + error.get("code").asText() + " with status " + r.status() + ", the table says " + expected;
        }
        String message = error.get("message").asText();
        if (message.contains("Exception") || message.contains("jackson") || message.contains("at com.")) {
            return "internals in the message: " + shorten(message);
        }
        if (c.field() != null && r.status() == 400 && !names(error, c.field())) {
            return "details.fields does not name " + c.field() + ": " + shorten(r.text());
        }
        return null;
    }

    /** ASCII only, each other character as \\uXXXX, at most 2,000 characters: labels carry unpaired surrogates. */
    private static String printable(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && out.length() < 2000; i++) {
            char ch = s.charAt(i);
            if (ch >= 0x20 && ch < 0x7F) {
                out.append(ch);
            } else {
                out.append(String.format("\\u%04X", (int) ch));
            }
        }
        return out.toString();
    }

    private static boolean names(JsonNode error, String field) {
        JsonNode fields = error.at("/details/fields");
        for (Iterator<JsonNode> it = fields.elements(); it.hasNext(); ) {
            String named = it.next().path("field").asText();
            if (named.equals(field) || named.startsWith(field + ".") || named.startsWith(field + "[")) {
                return true;
            }
        }
        return false;
    }

    private static String shorten(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…(" + s.length() + " chars)" : s;
    }
}
