package com.bettercompute.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document of a server with the market routes: a standard parser reads it without a message,
 * and it names every route served — several methods on one path ({@code /api/k8s/bid}) each — with the
 * snake_case fields of the records its body is bound into and its answer written from.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MarketOpenApiTest {
    MarketApiWorld api;
    JsonNode doc;
    String text;

    @BeforeAll
    void start() {
        api = new MarketApiWorld();
        MarketApiWorld.Reply r = api.send("GET", OpenApi.PATH, null, null);
        assertThat(r.status()).isEqualTo(200);
        text = r.body();
        doc = r.json();
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void swagger_parser_reads_it_without_a_message_and_every_operation_id_is_unique() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(text, null, options);
        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI().getPaths()).containsKeys(MarketRoutes.BID, MarketRoutes.FEED,
                OperatorMarketRoutes.BASE + "clusters", OperatorMarketRoutes.BASE + "nodes/out-of-service");
        Set<String> ids = new HashSet<>();
        for (Router.Route route : api.server.routes()) {
            String id = doc.get("paths").get(route.path()).get(route.httpMethod()).get("operationId").asText();
            assertThat(ids.add(id)).as("operationId %s of %s %s", id, route.httpMethod(), route.path()).isTrue();
        }
    }

    @Test
    void it_names_every_market_route_with_its_method_body_and_answer_records() {
        List<Router.Route> routes = api.server.routes();
        assertThat(routes.stream().filter(r -> r.path().equals(MarketRoutes.BID)).map(Router.Route::httpMethod))
                .containsExactlyInAnyOrder("put", "get", "delete");
        List<String> paths = new ArrayList<>();
        doc.get("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).containsExactlyInAnyOrderElementsOf(routes.stream().map(Router.Route::path).distinct().toList());
        for (Router.Route route : routes) {
            JsonNode op = doc.get("paths").get(route.path()).get(route.httpMethod());
            assertThat(op).as(route.httpMethod() + " " + route.path()).isNotNull();
            if (route.body() != null) {
                JsonNode body = schemaOf(op.at("/requestBody/content/application~1json/schema/$ref").asText());
                assertThat(OpenApiTest.fields(body)).as(route.path()).containsExactlyElementsOf(OpenApiTest.components(route.body().type()));
                assertThat(body.get("additionalProperties").asBoolean(true)).isFalse();
            }
            assertThat(OpenApiTest.fields(schemaOf(op.at("/responses/200/content/application~1json/schema/$ref").asText())))
                    .as(route.path()).containsExactlyElementsOf(OpenApiTest.components(route.answer()));
            for (JsonNode p : op.path("parameters")) {
                if (!p.get("in").asText().equals("query")) {
                    continue;
                }
                assertThat(route.query().stream().map(QueryString.Param::name).toList()).contains(p.get("name").asText());
            }
        }
    }

    @Test
    void an_answer_written_by_the_server_has_exactly_the_fields_its_schema_names() {
        MarketApiWorld.Reply bid = api.send("GET", "/api/k8s/bid?cluster=train", com.bettercompute.application.market.MarketWorld.ALICE, null);
        assertThat(bid.status()).as(bid.body()).isEqualTo(200);
        List<String> written = new ArrayList<>();
        bid.json().fieldNames().forEachRemaining(written::add);
        assertThat(written).containsExactlyElementsOf(OpenApiTest.fields(doc.at("/components/schemas/MarketBid")));
    }

    private JsonNode schemaOf(String ref) {
        assertThat(ref).startsWith("#/components/schemas/");
        return doc.at("/components/schemas/" + ref.substring("#/components/schemas/".length()));
    }
}
