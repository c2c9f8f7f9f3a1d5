package com.bettercompute.adapters.gke.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.application.fakes.MutableClock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The REST front end as GKE's REST API behaves: routes from the proto, JSON rules, error bodies, the fault controls. */
class RestFrontEndTest {
    private static final Duration OPERATION = Duration.ofSeconds(10);
    private final MutableClock clock = new MutableClock();
    private final HttpClient http = HttpClient.newHttpClient();
    private GkeSimulator simulator;

    @BeforeEach
    void start() {
        simulator = GkeSimulator.start(clock, OPERATION, 0, 0);
    }

    @AfterEach
    void stop() {
        simulator.close();
    }

    private record Reply(int status, String body) {
    }

    private Reply call(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(simulator.restUrl() + path)).header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), response.body());
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode tree(String body) throws IOException {
        return MAPPER.readTree(body);
    }

    private static JsonNode error(int code, String message, String status) {
        ObjectNode body = MAPPER.createObjectNode();
        body.putObject("error").put("code", code).put("message", message).put("status", status);
        return body;
    }

    private static final String CREATE = "{\"cluster\": {\"name\": \"c1\", \"initialNodeCount\": 2, \"releaseChannel\": {\"channel\": \"RAPID\"}}}";

    @Test
    void theRoutesComeFromTheProtoHttpRules() {
        List<RestRoutes.Route> routes = new RestRoutes().routes();
        assertThat(routes).hasSize(68);
        List<String> templates = new ArrayList<>();
        routes.forEach(r -> templates.add(r.httpMethod() + " " + r.template()));
        assertThat(templates).contains(
                "GET /v1/projects/{project_id}/zones/{zone}/serverconfig",
                "POST /v1/projects/{project_id}/zones/{zone}/clusters/{cluster_id}/nodePools/{node_pool_id}/setSize",
                "POST /v1/{name=projects/*/locations/*/clusters/*/nodePools/*}:setSize",
                "PUT /v1/{name=projects/*/locations/*/clusters/*}");
    }

    @Test
    void createsAndReadsThroughBothPathForms() throws Exception {
        Reply created = call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE);
        assertThat(created.status()).isEqualTo(200);
        assertThat(created.body()).contains("\"operationType\": \"CREATE_CLUSTER\"").contains("\"status\": \"PENDING\"");

        Matcher id = Pattern.compile("\"name\": \"(operation-[^\"]+)\"").matcher(created.body());
        assertThat(id.find()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(call("GET", "/v1/projects/p1/locations/us-central1-a/operations/" + id.group(1), null).body())
                .contains("\"status\": \"RUNNING\"");

        Reply provisioning = call("GET", "/v1/projects/p1/zones/us-central1-a/clusters/c1", null);
        assertThat(provisioning.status()).isEqualTo(200);
        assertThat(provisioning.body()).contains("\"status\": \"PROVISIONING\"").contains("\"channel\": \"RAPID\"");

        clock.advance(OPERATION);
        Reply running = call("GET", "/v1/projects/p1/locations/us-central1-a/clusters/c1?$alt=json;enum-encoding=int&alt=json", null);
        assertThat(call("GET", "/v1/projects/p1/zones/us-central1-a/operations/" + id.group(1), null).body())
                .contains("\"status\": \"DONE\"").contains("\"endTime\": \"2026-01-01T00:00:10Z\"");
        assertThat(running.body()).contains("\"status\": \"RUNNING\"").contains("\"currentNodeVersion\": \"1.34.1-gke.1829001\"");

        Reply list = call("GET", "/v1/projects/p1/locations/-/clusters", null);
        assertThat(list.body()).contains("\"name\": \"c1\"");
        Reply config = call("GET", "/v1/projects/p1/zones/us-central1-a/serverconfig", null);
        assertThat(config.body()).contains("\"defaultClusterVersion\": \"1.33.5-gke.1080000\"");
    }

    @Test
    void enumsMayComeAsNumbers() throws Exception {
        Reply created = call("POST", "/v1/projects/p1/locations/us-central1-a/clusters",
                "{\"cluster\": {\"name\": \"c2\", \"initialNodeCount\": 1, \"releaseChannel\": {\"channel\": 3}}}");
        assertThat(created.status()).isEqualTo(200);
        assertThat(call("GET", "/v1/projects/p1/locations/us-central1-a/clusters/c2", null).body()).contains("\"channel\": \"STABLE\"");
    }

    @Test
    void unknownFieldsAreRefusedAsGkeDoes() throws Exception {
        Reply reply = call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", "{\"cluster\": {\"name\": \"c1\", \"nodeCount\": 1}}");
        assertThat(reply.status()).isEqualTo(400);
        JsonNode error = tree(reply.body()).get("error");
        assertThat(error.get("code").asInt()).isEqualTo(400);
        assertThat(error.get("message").asText()).startsWith("Invalid JSON payload received.");
        assertThat(error.get("status").asText()).isEqualTo("INVALID_ARGUMENT");
        Reply query = call("GET", "/v1/projects/p1/locations/us-central1-a/clusters?bogus=1", null);
        assertThat(query.status()).isEqualTo(400);
    }

    @Test
    void errorsCarryCodeMessageAndStatus() throws Exception {
        Reply missing = call("GET", "/v1/projects/p1/locations/us-central1-a/clusters/nope", null);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(tree(missing.body())).isEqualTo(error(404, "Not found: projects/p1/locations/us-central1-a/clusters/nope.", "NOT_FOUND"));
        call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE);
        Reply duplicate = call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE);
        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(tree(duplicate.body()).get("error").get("status").asText()).isEqualTo("ALREADY_EXISTS");
        assertThat(call("GET", "/v1/nothing/here", null).status()).isEqualTo(404);
    }

    @Test
    void anErrorMessageWithANewlineAndQuotesStaysOneJsonDocument() throws Exception {
        String message = "line one\nsaid \"no\" \\ then\ttab";
        Map<String, Object> fault = Map.of("method", "GetServerConfig", "code", "UNAVAILABLE", "message", message);
        assertThat(call("POST", "/simulator/faults/fail-calls", MAPPER.writeValueAsString(fault)).status()).isEqualTo(200);
        Reply failed = call("GET", "/v1/projects/p1/locations/us-central1/serverConfig", null);
        assertThat(failed.status()).isEqualTo(503);
        assertThat(tree(failed.body())).isEqualTo(error(503, message, "UNAVAILABLE"));
    }

    @Test
    void answersGcloudsServiceUsageQuestion() throws Exception {
        Reply reply = call("GET", "/v1/projects/p1/services/container.googleapis.com", null);
        assertThat(reply.status()).isEqualTo(200);
        assertThat(tree(reply.body())).isEqualTo(MAPPER.createObjectNode()
                .put("name", "projects/p1/services/container.googleapis.com").put("state", "ENABLED"));
    }

    @Test
    void anUpdateTakesExactlyOneChange() throws Exception {
        call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE);
        clock.advance(OPERATION);
        Reply two = call("PUT", "/v1/projects/p1/locations/us-central1-a/clusters/c1",
                "{\"update\": {\"desiredMasterVersion\": \"latest\", \"desiredReleaseChannel\": {\"channel\": \"STABLE\"}}}");
        assertThat(two.status()).isEqualTo(400);
        assertThat(two.body()).contains("Exactly one update");
        Reply none = call("PUT", "/v1/projects/p1/locations/us-central1-a/clusters/c1", "{\"update\": {}}");
        assertThat(none.status()).isEqualTo(400);
    }

    @Test
    void operatorsDriveFaultsOverRest() throws Exception {
        Reply armed = call("POST", "/simulator/faults/fail-calls", "{\"method\": \"GetServerConfig\", \"count\": 1, \"code\": \"UNAVAILABLE\", \"message\": \"try later\"}");
        assertThat(armed.status()).isEqualTo(200);
        assertThat(tree(armed.body()).get("failingCalls").get("GetServerConfig")).isEqualTo(MAPPER.createArrayNode().add("UNAVAILABLE"));
        Reply failed = call("GET", "/v1/projects/p1/locations/us-central1/serverConfig", null);
        assertThat(failed.status()).isEqualTo(503);
        assertThat(tree(failed.body())).isEqualTo(error(503, "try later", "UNAVAILABLE"));
        assertThat(call("GET", "/v1/projects/p1/locations/us-central1/serverConfig", null).status()).isEqualTo(200);

        call("POST", "/simulator/faults/refuse-version", "{\"version\": \"1.34.1-gke.1829001\"}");
        assertThat(call("GET", "/v1/projects/p1/locations/us-central1/serverConfig", null).body()).doesNotContain("1.34.1-gke.1829001");

        call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE.replace("RAPID", "REGULAR"));
        clock.advance(OPERATION);
        Reply upgraded = call("POST", "/simulator/faults/release-channel-upgrade", "{\"name\": \"projects/p1/locations/us-central1-a/clusters/c1\"}");
        assertThat(tree(upgraded.body())).isEqualTo(MAPPER.createObjectNode().put("version", "1.33.5-gke.1162000"));
        assertThat(call("GET", "/v1/projects/p1/locations/us-central1-a/clusters/c1", null).body())
                .contains("\"currentMasterVersion\": \"1.33.5-gke.1162000\"").contains("\"currentNodeVersion\": \"1.33.5-gke.1162000\"");

        assertThat(call("POST", "/simulator/faults/delete-cluster", "{\"name\": \"projects/p1/locations/us-central1-a/clusters/c1\"}").status())
                .isEqualTo(200);
        assertThat(call("GET", "/v1/projects/p1/locations/us-central1-a/clusters/c1", null).status()).isEqualTo(404);

        call("POST", "/simulator/faults/exhaust-quota", "{\"project\": \"p1\"}");
        Reply refused = call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.body()).contains("RESOURCE_EXHAUSTED");

        call("POST", "/simulator/faults/refuse-identity-service", "{\"project\": \"p1\"}");
        assertThat(tree(call("GET", "/simulator/faults", null).body()).get("identityServiceRefusedProjects").toString()).isEqualTo("[\"p1\"]");

        call("POST", "/simulator/faults/clear", "{}");
        assertThat(call("POST", "/v1/projects/p1/locations/us-central1-a/clusters", CREATE).status()).isEqualTo(200);
        assertThat(call("POST", "/simulator/faults/nonsense", "{}").status()).isEqualTo(404);
    }
}
