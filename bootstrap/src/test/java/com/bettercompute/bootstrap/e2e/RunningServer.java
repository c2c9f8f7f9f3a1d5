package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.bootstrap.Server;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.UUID;

/**
 * The real server's wiring started on a free port for end-to-end tests, with the test catalog
 * ({@code e2e-catalog.yaml}) and a database of the test's choosing, used over HTTP.
 */
public final class RunningServer implements AutoCloseable {
    public static final String ALICE = "alice-token";
    public static final String BOB = "bob-token";
    public static final String CAROL = "carol-token";
    public static final String DAVE = "dave-token";
    public static final String OPS = "ops-token";
    public static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";

    static final ObjectMapper JSON = new ObjectMapper();
    /** Every exchange is also checked against the served OpenAPI document. */
    private static final HttpClient HTTP = com.bettercompute.adapters.http.contract.CheckedHttpClient.of(HttpClient.newHttpClient());

    private final Server server;
    private final String base;
    public final String dbUrl;

    private RunningServer(Server server, String dbUrl) {
        this.server = server;
        this.base = "http://127.0.0.1:" + server.port();
        this.dbUrl = dbUrl;
    }

    /** A fresh in-memory H2 database. */
    public static String h2() {
        return "jdbc:h2:mem:e2e-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    /** A fresh database on the test PostgreSQL (TEST_PG_URL or an embedded one). */
    public static String postgres() {
        TestPostgres.Db db = TestPostgres.newDatabase();
        if (db.user() == null) {
            return db.url();
        }
        String sep = db.url().contains("?") ? "&" : "?";
        return db.url() + sep + "user=" + URLEncoder.encode(db.user(), StandardCharsets.UTF_8)
                + (db.password() == null ? "" : "&password=" + URLEncoder.encode(db.password(), StandardCharsets.UTF_8));
    }

    public static RunningServer start(String dbUrl) {
        return start(dbUrl, catalogFile());
    }

    /** The API alone: the reconciler does not run, so clusters stay as the API left them. */
    public static RunningServer start(String dbUrl, Path catalog) {
        return start(ServerConfig.defaults().withPort(0).withDb(dbUrl).withCatalog(catalog).withoutReconciler());
    }

    /**
     * The whole product: the reconciler against the in-process GKE simulator, with operations of
     * {@code operationSeconds} and the reconciler looking every second (settled clusters every 2 s).
     */
    public static RunningServer withReconciler(String dbUrl, int operationSeconds) {
        return start(ServerConfig.defaults().withPort(0).withDb(dbUrl).withCatalog(catalogFile())
                .withProvider("simulator", null, operationSeconds, 1, 2));
    }

    public static RunningServer start(ServerConfig config) {
        return start(config, Clock.systemUTC());
    }

    /** With the clock the server is given (a test that moves time on). */
    public static RunningServer start(ServerConfig config, Clock clock) {
        return new RunningServer(Server.start(config, clock), config.db());
    }

    public Server server() {
        return server;
    }

    public static Path catalogFile() {
        try (InputStream in = RunningServer.class.getResourceAsStream("/e2e-catalog.yaml")) {
            Path file = Files.createTempFile("e2e-catalog", ".yaml");
            Files.write(file, in.readAllBytes());
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String baseUrl() {
        return base;
    }

    /** A reply: status, the X-Request-Id header, and the body as JSON (or null when it is not JSON). */
    public record Reply(int status, String requestId, JsonNode json, String text, String retryAfter) {
        public String code() {
            return json == null || !json.has("error") ? null : json.get("error").get("code").asText();
        }
    }

    public Reply call(String method, String token, String body) {
        return send(HttpRequest.newBuilder(URI.create(base + "/api/compute/kubernetesClusters/" + method))
                .POST(HttpRequest.BodyPublishers.ofString(body)), token);
    }

    public Reply call(String method, String token, Object body) {
        try {
            return call(method, token, JSON.writeValueAsString(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Reply get(String pathAndQuery, String token) {
        return send(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).GET(), token);
    }

    public Reply delete(String pathAndQuery, String token) {
        return send(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).DELETE(), token);
    }

    private Reply send(HttpRequest.Builder request, String token) {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        request.header("Content-Type", "application/json");
        try {
            HttpResponse<String> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json;
            try {
                json = JSON.readTree(r.body());
            } catch (IOException notJson) {
                json = null;
            }
            return new Reply(r.statusCode(), r.headers().firstValue("X-Request-Id").orElse(null), json, r.body(),
                    r.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        com.bettercompute.adapters.http.contract.ContractCheck.forget(base);
        server.close();
    }
}
