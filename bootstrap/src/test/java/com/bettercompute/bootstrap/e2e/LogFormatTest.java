package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static com.bettercompute.bootstrap.e2e.RunningServer.ALICE;
import static com.bettercompute.bootstrap.e2e.RunningServer.DAVE;
import static com.bettercompute.bootstrap.e2e.RunningServer.OPS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's own output in both {@code --log-format}s, under calls that carry tokens everywhere a client can
 * put one (the header, the body, a field, a malformed body, a query): no token appears in it. In {@code json}
 * every log line is one JSON object, and a request's lines carry its request id and tenant.
 */
class LogFormatTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String UNKNOWN = "not-a-real-token-7c2e1a";
    static final List<String> TOKENS = List.of(ALICE, RunningServer.BOB, RunningServer.CAROL, DAVE, OPS, UNKNOWN);

    @Test
    void text_logs_no_token(@TempDir Path dir) throws Exception {
        List<String> lines = runWithTraffic(dir, "text");
        assertThat(lines).anyMatch(l -> l.contains("/api/compute/kubernetesClusters/create") && l.contains("caller=user:alice@acme.example"));
        assertNoToken(lines);
    }

    @Test
    void json_writes_one_object_a_line_with_the_request_and_tenant_and_logs_no_token(@TempDir Path dir) throws Exception {
        List<String> lines = runWithTraffic(dir, "json");
        List<JsonNode> logs = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("listening on ") || line.startsWith("admission webhooks on ") || line.startsWith("gke simulator")
                    || line.startsWith("filestore simulator")) {
                continue; // what serve prints for a person, on standard output
            }
            JsonNode json = RunningServer.JSON.readTree(line);
            assertThat(json.isObject()).as(line).isTrue();
            assertThat(json.has("timestamp") && json.has("level") && json.has("loggerName") && json.has("formattedMessage")).as(line).isTrue();
            logs.add(json);
        }
        assertThat(logs).anySatisfy(j -> {
            assertThat(j.get("formattedMessage").asText()).contains("/api/compute/kubernetesClusters/create").contains("caller=user:alice@acme.example");
            assertThat(j.path("mdc").path("requestId").asText()).matches("[0-9a-f-]{36}");
            assertThat(j.path("mdc").path("tenantId").asText()).isEqualTo("acme");
        });
        assertNoToken(lines);
    }

    private static void assertNoToken(List<String> lines) {
        assertThat(lines).isNotEmpty();
        for (String token : TOKENS) {
            assertThat(lines).as("the server's output").noneMatch(l -> l.contains(token));
        }
    }

    private static List<String> runWithTraffic(Path dir, String format) throws Exception {
        try (OperatedServer server = OperatedServer.start(dir.resolve("server.log"), "--port", "0", "--db", "jdbc:h2:file:" + dir.resolve("bc"),
                "--catalog", RunningServer.catalogFile().toString(), "--sim-operation-seconds", "1",
                "--reconcile-converging-seconds", "1", "--log-format", format)) {
            String create = RunningServer.JSON.writeValueAsString(ClustersApiContract.standard("acme", "logged"));
            assertThat(post(server, "create", ALICE, create)).isEqualTo(200);
            post(server, "create", UNKNOWN, create);
            post(server, "create", ALICE, "{\"tenantId\": \"" + ALICE + "\", \"x\": ");
            post(server, "create", ALICE, "{\"tenantId\": \"" + ALICE + "\", \"clusterId\": \"" + ALICE + "\", \"poolId\": \"" + DAVE + "\"}");
            post(server, "get", DAVE, "{\"tenantId\": \"acme\", \"clusterId\": \"" + OPS + "\"}");
            post(server, "list", "Bearer " + OPS, "{\"tenantId\": \"acme\"}");
            get(server, "/api/events?after=" + OPS, OPS);
            get(server, "/api/usage?tenantId=" + ALICE, ALICE);
            assertThat(server.terminate(30)).isEqualTo(0);
            return server.lines();
        }
    }

    private static int post(OperatedServer server, String method, String token, String body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl + "/api/compute/kubernetesClusters/" + method))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    private static void get(OperatedServer server, String path, String token) throws IOException, InterruptedException {
        HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl + path)).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
