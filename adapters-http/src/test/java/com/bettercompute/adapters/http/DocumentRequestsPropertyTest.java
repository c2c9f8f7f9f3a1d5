package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.contract.ContractCheck;
import com.bettercompute.adapters.http.contract.DocumentRequests;
import com.bettercompute.application.market.MarketWorld;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests generated from the served OpenAPI document alone ({@link DocumentRequests}: every operation, bodies
 * and queries from its schemas, and mutations the document refuses), sent over a socket to the HTTP adapter
 * with every route over the use cases on in-memory fakes ({@link MarketApiWorld}). Each exchange is held to
 * the document by {@link ContractCheck}: no 5xx, no undeclared status, no answer off its schema, no request
 * the document refuses accepted, and no request it allows refused for a rule of a field's own schema (the
 * refusals of state — a cluster not found, a bid below the reserve — are the use cases' and stay allowed).
 * It takes tens of seconds: each of its 1,500 tries is a real HTTP exchange validated request and response.
 */
class DocumentRequestsPropertyTest {
    /**
     * Another server to send to instead, such as a validating proxy in front of the embedded default:
     * {@code -Dcontract.port=4010 -Dcontract.document=FILE -Dcontract.tokens=TENANT,OPS,OTHER -Dcontract.known=tenantId=demo;cluster=train}
     * (the document the proxy holds, such as the committed {@code docs/openapi.json}).
     */
    private static final Integer TARGET = Integer.getInteger("contract.port");
    private static MarketApiWorld server;
    private static MalformedClient client;
    private static DocumentRequests requests;
    private static List<String> tokens;

    @BeforeContainer
    static void start() throws Exception {
        Map<String, List<Object>> known;
        String document;
        if (TARGET == null) {
            server = new MarketApiWorld();
            client = new MalformedClient(server.port);
            document = new String(server.sendBytes("GET", "/api/openapi.json"), java.nio.charset.StandardCharsets.UTF_8);
            tokens = List.of(MarketWorld.ALICE, MarketWorld.OPS, MarketWorld.CAROL);
            known = Map.of(
                    "tenantId", List.of("acme", "globex"),
                    "org", List.of("acme"),
                    "cluster", List.of("train", "eu"),
                    "clusterId", List.of(MarketWorld.ACME_TRAIN, MarketWorld.ACME_EU),
                    "cluster_id", List.of(MarketWorld.ACME_TRAIN),
                    "pool", List.of(MarketWorld.POOL),
                    "poolId", List.of("pool_01hzx8k3v4w5y6z7a8b9c0d1e2"),
                    "location", List.of("us-central1-a"));
        } else {
            client = new MalformedClient(TARGET);
            document = java.nio.file.Files.readString(java.nio.file.Path.of(System.getProperty("contract.document")));
            com.bettercompute.adapters.http.contract.ContractCheck.register("http://127.0.0.1:" + TARGET, document);
            tokens = List.of(System.getProperty("contract.tokens").split(","));
            known = new java.util.HashMap<>();
            for (String pair : System.getProperty("contract.known", "").split(";")) {
                if (pair.contains("=")) {
                    known.put(pair.substring(0, pair.indexOf('=')), List.of((Object[]) pair.substring(pair.indexOf('=') + 1).split(",")));
                }
            }
        }
        requests = new DocumentRequests(document, known);
    }

    @AfterContainer
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Property(tries = 1500, seed = "20261201", edgeCases = EdgeCasesMode.NONE)
    void every_exchange_of_generated_and_mutated_requests_keeps_the_document(@ForAll("requests") DocumentRequests.Generated r,
                                                                            @ForAll("tokens") String token) throws Exception {
        MalformedClient.Response answer = client.send(r.method(), r.pathAndQuery(), token, r.contentType(), r.headers(), r.body());

        assertThat(answer.failure()).as(r.toString()).isNull();
        assertThat(answer.status()).as(r + " -> " + answer.text()).isBetween(200, 499);
        Statistics.label("operation").collect(r.operation());
        Statistics.label("answer").collect(r.mutation() == null ? "as generated " + answer.status() : "mutated " + answer.status());
        if (r.mutation() == null && answer.status() == 400) {
            // what the document allows and the server refused: rules between fields (x-rules) and of state only
            com.fasterxml.jackson.databind.JsonNode error = MarketApiWorld.JSON.readTree(answer.body()).get("error");
            Statistics.label("400 to a generated request").collect(r.operation() + " " + error.at("/details/reason").asText("")
                    + error.at("/details/fields").findValuesAsText("problem"));
        }
        Statistics.label("operation").coverage(c -> requests.operations().keySet().forEach(op -> c.check(op).count(n -> n >= 20)));
    }

    @Example
    void the_generator_knows_every_operation_of_the_document() {
        assertThat(requests.operations()).hasSize(30);
    }

    @Provide
    Arbitrary<DocumentRequests.Generated> requests() {
        // -Dcontract.mutated=0 in front of a validating proxy, which answers a broken request itself
        return requests.requests(Double.parseDouble(System.getProperty("contract.mutated", "0.4")));
    }

    @Provide
    Arbitrary<String> tokens() {
        return net.jqwik.api.Arbitraries.frequency(
                net.jqwik.api.Tuple.of(5, tokens.get(0)), net.jqwik.api.Tuple.of(3, tokens.get(1)),
                net.jqwik.api.Tuple.of(1, tokens.get(2)), net.jqwik.api.Tuple.of(1, "no-such-token"));
    }
}
