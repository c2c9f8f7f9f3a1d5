package com.bettercompute.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /api/openapi.json}: an OpenAPI 3.1 document a standard parser reads without a message, naming
 * every route served with the fields of the records its body is bound into and its answer written from;
 * the committed copy is the served document, byte for byte.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiTest {
    /** From the module's directory, where surefire runs. */
    static final String COMMITTED = "../docs/openapi.json";

    ApiWorld api;
    JsonNode doc;
    String text;

    @BeforeAll
    void start() {
        api = ApiWorld.start();
        ApiWorld.Reply r = api.get(OpenApi.PATH, null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).startsWith("application/json");
        text = r.body();
        doc = r.json();
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void swagger_parser_reads_it_as_openapi_3_1_without_a_message() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(text, null, options);
        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI()).isNotNull();
        assertThat(result.getOpenAPI().getOpenapi()).isEqualTo("3.1.0");
        assertThat(result.getOpenAPI().getPaths()).containsKeys(ClusterRoutes.BASE + "create", NodePoolRoutes.BASE + "update", "/api/events");
    }

    /**
     * The copy in the repository ({@value #COMMITTED}) is what the client of the end-to-end tests is generated
     * from at build time; it must be the served document. After a change of the routes, rewrite it with
     * {@code -Dopenapi.rewrite=true} on this test, and review the diff.
     */
    @Test
    void the_committed_copy_the_client_is_generated_from_is_the_served_document_byte_for_byte() throws IOException {
        Path committed = Path.of(COMMITTED);
        try (MarketApiWorld full = new MarketApiWorld()) {
            byte[] served = full.sendBytes("GET", OpenApi.PATH);
            if (Boolean.getBoolean("openapi.rewrite")) {
                Files.write(committed, served);
            }
            assertThat(Files.exists(committed)).as(committed.toAbsolutePath() + " exists").isTrue();
            assertThat(new String(Files.readAllBytes(committed), java.nio.charset.StandardCharsets.UTF_8))
                    .as("%s is the served document; rewrite it with -Dopenapi.rewrite=true (see this test)", COMMITTED)
                    .isEqualTo(new String(served, java.nio.charset.StandardCharsets.UTF_8));
            JsonNode doc = ApiWorld.JSON.readTree(served);
            int operations = 0;
            for (JsonNode item : doc.get("paths")) {
                operations += item.size();
            }
            assertThat(operations).as("every route of a server with every resource").isEqualTo(full.server.routes().size()).isEqualTo(30);
        }
    }

    @Test
    void it_names_every_route_served_with_its_body_and_answer_records() {
        List<Router.Route> routes = api.server.routes();
        assertThat(routes).hasSizeGreaterThanOrEqualTo(14);
        List<String> paths = new ArrayList<>();
        doc.get("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).containsExactlyInAnyOrderElementsOf(routes.stream().map(Router.Route::path).toList());
        for (Router.Route route : routes) {
            JsonNode op = doc.get("paths").get(route.path()).get(route.httpMethod());
            assertThat(op).as(route.path()).isNotNull();
            if (route.body() != null) {
                assertThat(fields(schemaOf(op.at("/requestBody/content/application~1json/schema/$ref").asText())))
                        .as(route.path()).containsExactlyElementsOf(components(route.body().type()));
                assertThat(schemaOf(op.at("/requestBody/content/application~1json/schema/$ref").asText()).get("additionalProperties").asBoolean(true))
                        .as("unknown fields are refused").isFalse();
            }
            assertThat(fields(schemaOf(op.at("/responses/200/content/application~1json/schema/$ref").asText())))
                    .as(route.path()).containsExactlyElementsOf(components(route.answer()));
            assertThat(op.at("/responses/400/$ref").asText()).isEqualTo("#/components/responses/Error");
        }
    }

    @Test
    void an_answer_written_by_the_server_has_exactly_the_fields_its_schema_names() {
        ApiWorld.Reply created = api.call("create", ApiWorld.ALICE, ClusterBodies.standard("openapi"));
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        List<String> written = new ArrayList<>();
        created.json().fieldNames().forEachRemaining(written::add);
        assertThat(written).containsExactlyElementsOf(fields(doc.at("/components/schemas/ClusterView")));
        List<String> pool = new ArrayList<>();
        created.json().get("nodePools").get(0).fieldNames().forEachRemaining(pool::add);
        assertThat(pool).containsExactlyElementsOf(fields(doc.at("/components/schemas/NodePoolView")));
    }

    private JsonNode schemaOf(String ref) {
        assertThat(ref).startsWith("#/components/schemas/");
        return doc.at("/components/schemas/" + ref.substring("#/components/schemas/".length()));
    }

    static List<String> fields(JsonNode schema) {
        List<String> names = new ArrayList<>();
        schema.get("properties").fieldNames().forEachRemaining(names::add);
        return names;
    }

    static List<String> components(Class<?> record) {
        return Arrays.stream(record.getRecordComponents()).map(RecordComponent::getName).toList();
    }
}
