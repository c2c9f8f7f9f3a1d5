package com.bettercompute.bootstrap.e2e;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.bettercompute.adapters.gke.GkeClusterProvider;
import com.bettercompute.adapters.gke.GkeClusterProviders;
import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.SignedJWT;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static com.bettercompute.bootstrap.e2e.RunningServer.ALICE;
import static com.bettercompute.bootstrap.e2e.RunningServer.CAROL;
import static com.bettercompute.bootstrap.e2e.RunningServer.DAVE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sign-in to clusters over HTTP on the embedded default (the spec's "Connecting"): the platform's OpenID
 * Connect discovery and JWKS, the kubeconfig by token (no secret in it) and by name (409
 * {@code ambiguous-cluster}, 404, 429 per address), the device grant approved by a person of the cluster's
 * organization and refused to another's, ID tokens verified against the published keys, refresh tokens that
 * rotate and lapse after a day of the injected clock, and no code or token in the logs or the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SignInEndToEndTest {
    static final Duration PATIENCE = Duration.ofSeconds(90);
    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** The wall clock moved on by what the test says: the server's injected clock. */
    static final class OffsetClock extends Clock {
        final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

        void advance(Duration d) {
            offset.updateAndGet(o -> o.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(offset.get());
        }
    }

    final OffsetClock clock = new OffsetClock();
    final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    final Logger access = (Logger) LoggerFactory.getLogger("better-compute.access");
    /** Every code and token the run was handed: none may show in a log line or the database. */
    final List<String> secrets = new ArrayList<>();
    RunningServer server;
    String base;
    String audience;
    /** The id of acme's cluster {@code only-acme}, the one people sign in to here. */
    String onlyAcme;

    @BeforeAll
    void start() {
        logs.start();
        root.addAppender(logs);
        access.addAppender(logs);
        ServerConfig config = ServerConfig.defaults().withPort(0).withDb(RunningServer.h2()).withCatalog(RunningServer.catalogFile())
                .withProvider("simulator", null, 1, 1, 2);
        server = RunningServer.start(config, clock);
        base = server.baseUrl();
        onlyAcme = create(ALICE, "acme", "only-acme");
        String shared = create(ALICE, "acme", "shared-name");
        String rival = create(CAROL, "globex", "shared-name");
        for (String id : List.of(onlyAcme, shared)) {
            awaitReady("acme", id);
        }
        awaitReady("globex", rival);
    }

    @AfterAll
    void stop() {
        try {
            server.close();
        } finally {
            root.detachAppender(logs);
            access.detachAppender(logs);
        }
    }

    String create(String token, String tenant, String name) {
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard(tenant, name));
        body.put("nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 1)));
        RunningServer.Reply r = server.call("create", token, body);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().get("id").asText();
    }

    void awaitReady(String tenant, String id) {
        String token = tenant.equals("acme") ? ALICE : CAROL;
        Instant deadline = Instant.now().plus(PATIENCE);
        while (!server.call("get", token, Map.of("tenantId", tenant, "clusterId", id)).json().get("state").asText().equals("ready")) {
            assertThat(Instant.now()).as("cluster %s ready in time", id).isBefore(deadline);
            pause(200);
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    record Answer(int status, String body, Map<String, String> headers) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    Answer get(String path, String token) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return send(r);
    }

    Answer form(String path, String token, Map<String, String> fields) {
        String body = fields.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return send(r);
    }

    static Answer send(HttpRequest.Builder r) {
        try {
            HttpResponse<String> a = HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
            Map<String, String> headers = new LinkedHashMap<>();
            a.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
            return new Answer(a.statusCode(), a.body(), headers);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    String audience() {
        if (audience == null) {
            Answer k = get("/api/k8s/cluster/kubeconfig?cluster=only-acme", ALICE);
            assertThat(k.status()).as(k.body()).isEqualTo(200);
            List<String> args = new ArrayList<>();
            yaml(k.body()).at("/users/0/user/exec/args").forEach(a -> args.add(a.asText()));
            audience = args.get(args.indexOf("--client") + 1);
        }
        return audience;
    }

    static JsonNode yaml(String text) {
        try {
            return YAML.readTree(text);
        } catch (Exception e) {
            throw new AssertionError("not YAML: " + text, e);
        }
    }

    JsonNode startSignIn() {
        Answer a = form("/oidc/device/code", null, Map.of("client_id", audience()));
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        JsonNode d = a.json();
        secrets.add(d.get("device_code").asText());
        return d;
    }

    Answer poll(String deviceCode) {
        return form("/oidc/token", null, Map.of("grant_type", "urn:ietf:params:oauth:grant-type:device_code", "device_code", deviceCode));
    }

    Answer refresh(String token) {
        return form("/oidc/token", null, Map.of("grant_type", "refresh_token", "refresh_token", token));
    }

    JsonNode tokens(Answer a) {
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(a.headers()).containsEntry("cache-control", "no-store");
        JsonNode t = a.json();
        secrets.add(t.get("id_token").asText());
        secrets.add(t.get("refresh_token").asText());
        return t;
    }

    /** A signed-in person's tokens: a code approved by {@code approver}, then redeemed. */
    JsonNode signIn(String approver) {
        JsonNode d = startSignIn();
        Answer approved = form("/signin", approver, Map.of("user_code", d.get("user_code").asText()));
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        return tokens(poll(d.get("device_code").asText()));
    }

    SignedJWT verified(String idToken) throws Exception {
        SignedJWT jwt = SignedJWT.parse(idToken);
        JWKSet keys = JWKSet.parse(get("/oidc/jwks", null).body());
        RSAKey key = (RSAKey) keys.getKeyByKeyId(jwt.getHeader().getKeyID());
        assertThat(key).as("the signing key is published").isNotNull();
        assertThat(key.isPrivate()).isFalse();
        assertThat(jwt.verify(new RSASSAVerifier(key))).isTrue();
        return jwt;
    }

    @Test
    @Order(1)
    void discovery_names_the_issuer_its_keys_and_the_device_grant() {
        Answer a = get("/.well-known/openid-configuration", null);

        assertThat(a.status()).isEqualTo(200);
        assertThat(a.headers().get("cache-control")).startsWith("public");
        JsonNode d = a.json();
        assertThat(d.get("issuer").asText()).isEqualTo(base);
        assertThat(d.get("jwks_uri").asText()).isEqualTo(base + "/oidc/jwks");
        assertThat(d.get("token_endpoint").asText()).isEqualTo(base + "/oidc/token");
        assertThat(d.get("device_authorization_endpoint").asText()).isEqualTo(base + "/oidc/device/code");
        assertThat(d.get("id_token_signing_alg_values_supported").toString()).contains("RS256");
        JsonNode keys = get("/oidc/jwks", null).json().get("keys");
        assertThat(keys).isNotEmpty();
        keys.forEach(k -> {
            assertThat(k.get("kty").asText()).isEqualTo("RSA");
            assertThat(k.get("kid").asText()).isNotBlank();
            assertThat(k.has("d")).as("no private part in the JWKS").isFalse();
        });
    }

    @Test
    @Order(2)
    void the_kubeconfig_by_token_names_the_server_the_ca_and_the_plugin_and_holds_no_secret() {
        Answer a = get("/api/k8s/cluster/kubeconfig?cluster=only-acme", ALICE);

        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(a.headers().get("content-type")).startsWith("application/yaml");
        JsonNode k = yaml(a.body());
        assertThat(k.at("/clusters/0/cluster/server").asText()).startsWith("https://");
        assertThat(k.at("/clusters/0/cluster/certificate-authority-data").asText()).isNotBlank();
        assertThat(k.at("/contexts/0/name").asText()).isEqualTo("only-acme");
        JsonNode exec = k.at("/users/0/user/exec");
        assertThat(exec.get("apiVersion").asText()).isEqualTo("client.authentication.k8s.io/v1");
        assertThat(exec.get("command").asText()).isEqualTo("kubectl-nc");
        assertThat(exec.get("interactiveMode").asText()).isEqualTo("IfAvailable");
        assertThat(exec.get("args").toString()).contains(base).contains("projects/platform-prod/locations/us-central1-a/clusters/bc-k-");
        assertThat(a.body()).doesNotContain("token:", "client-key", "client-certificate", "password", ALICE, "Bearer");
    }

    @ParameterizedTest(name = "{0} asking for {1} (org {2}) is answered {3}")
    @CsvSource({
            "carol-token, only-acme, '', 404",
            "carol-token, only-acme, acme, 404",
            "dave-token, only-acme, '', 200",
            "alice-token, shared-name, '', 200",
            "alice-token, never-was, '', 404",
            "'', only-acme, '', 401"})
    @Order(3)
    void the_kubeconfig_by_token_resolves_the_name_inside_the_tokens_organization(String token, String cluster, String org, int status) {
        Answer a = get("/api/k8s/cluster/kubeconfig?cluster=" + cluster + (org.isEmpty() ? "" : "&org=" + org), token.isEmpty() ? null : token);

        assertThat(a.status()).as(a.body()).isEqualTo(status);
    }

    @Test
    @Order(4)
    void onboarding_by_name_serves_a_unique_name_refuses_a_shared_one_and_is_rate_limited_per_address() {
        Answer unique = get("/api/k8s/onboarding/kubeconfig?cluster=only-acme", null);
        assertThat(unique.status()).as(unique.body()).isEqualTo(200);
        assertThat(unique.body()).isEqualTo(get("/api/k8s/cluster/kubeconfig?cluster=only-acme", ALICE).body());

        Answer shared = get("/api/k8s/onboarding/kubeconfig?cluster=shared-name", null);
        assertThat(shared.status()).isEqualTo(409);
        assertThat(shared.json().at("/error/code").asText()).isEqualTo("CONFLICT");
        assertThat(shared.json().at("/error/details/reason").asText()).isEqualTo("ambiguous-cluster");
        assertThat(shared.json().at("/error/details/use").asText()).startsWith("/api/k8s/cluster/kubeconfig");

        Answer none = get("/api/k8s/onboarding/kubeconfig?cluster=never-was", null);
        assertThat(none.status()).isEqualTo(404);

        Answer limited = none;
        for (int i = 0; i < 20 && limited.status() != 429; i++) {
            limited = get("/api/k8s/onboarding/kubeconfig?cluster=guess-" + i, null);
        }
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.headers()).containsKey("retry-after");
        clock.advance(Duration.ofMinutes(5)); // the bucket fills again for the tests after this one
    }

    @Test
    @Order(5)
    void a_person_of_the_organization_approves_the_code_and_the_poll_gets_an_id_token_for_the_cluster() throws Exception {
        JsonNode d = startSignIn();
        assertThat(d.get("verification_uri").asText()).isEqualTo(base + "/signin");
        assertThat(d.get("verification_uri_complete").asText()).isEqualTo(base + "/signin?user_code=" + d.get("user_code").asText());
        assertThat(d.get("interval").asInt()).isPositive();
        String device = d.get("device_code").asText();
        String user = d.get("user_code").asText();

        assertThat(poll(device).json().get("error").asText()).isEqualTo("authorization_pending");
        assertThat(poll(device).json().get("error").asText()).isEqualTo("slow_down");
        Answer page = get("/signin?user_code=" + user, null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("only-acme", user, "Approve", "Deny");
        Answer rival = form("/signin", CAROL, Map.of("user_code", user));
        assertThat(rival.status()).as("another organization's person never sees the code").isEqualTo(404);
        Answer approved = form("/signin", ALICE, Map.of("user_code", user));
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        assertThat(approved.json().get("role").asText()).isEqualTo("cluster-admin");
        clock.advance(Duration.ofSeconds(30));

        JsonNode t = tokens(poll(device));
        SignedJWT jwt = verified(t.get("id_token").asText());
        assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo(base);
        assertThat(jwt.getJWTClaimsSet().getAudience()).containsExactly(audience());
        assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo("user:alice@acme.example");
        assertThat(jwt.getJWTClaimsSet().getStringListClaim("groups")).containsExactly("nc:admin");
        assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant()).isAfter(clock.instant());
        assertThat(poll(device).json().get("error").asText()).as("a code is redeemed once").isEqualTo("invalid_grant");
        assertThat(server.server().kubernetesApis()).isPresent();
    }

    @Test
    @Order(6)
    void a_viewer_gets_the_view_group_and_a_denied_code_is_access_denied() throws Exception {
        JsonNode viewer = signIn(DAVE);
        assertThat(verified(viewer.get("id_token").asText()).getJWTClaimsSet().getStringListClaim("groups")).containsExactly("nc:view");

        JsonNode d = startSignIn();
        Answer denied = send(HttpRequest.newBuilder(URI.create(base + "/signin")).header("Authorization", "Bearer " + ALICE)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"user_code\":\"" + d.get("user_code").asText() + "\",\"action\":\"deny\"}")));
        assertThat(denied.status()).as(denied.body()).isEqualTo(200);
        assertThat(denied.json().get("approved").asBoolean()).isFalse();
        clock.advance(Duration.ofSeconds(30));
        assertThat(poll(d.get("device_code").asText()).json().get("error").asText()).isEqualTo("access_denied");
    }

    @Test
    @Order(7)
    void refresh_tokens_rotate_keep_working_while_used_and_lapse_after_a_day_without_use() throws Exception {
        JsonNode first = signIn(ALICE);
        String r1 = first.get("refresh_token").asText();

        clock.advance(Duration.ofHours(23));
        JsonNode second = tokens(refresh(r1));
        assertThat(verified(second.get("id_token").asText()).getJWTClaimsSet().getSubject()).isEqualTo("user:alice@acme.example");
        assertThat(refresh(r1).json().get("error").asText()).as("a refresh token is used once").isEqualTo("invalid_grant");

        clock.advance(Duration.ofHours(23));
        JsonNode third = tokens(refresh(second.get("refresh_token").asText()));

        clock.advance(Duration.ofHours(24).plusMinutes(1));
        Answer lapsed = refresh(third.get("refresh_token").asText());
        assertThat(lapsed.status()).isEqualTo(400);
        assertThat(lapsed.json().get("error").asText()).isEqualTo("invalid_grant");
        assertThat(signIn(ALICE).get("id_token").asText()).as("a new approval signs in again").isNotBlank();
    }

    @Test
    @Order(8)
    void a_device_code_expires_and_an_unknown_grant_type_is_refused() {
        JsonNode d = startSignIn();
        clock.advance(Duration.ofMinutes(11));

        assertThat(poll(d.get("device_code").asText()).json().get("error").asText()).isEqualTo("expired_token");
        assertThat(get("/signin?user_code=" + d.get("user_code").asText(), null).status()).isEqualTo(404);
        assertThat(form("/oidc/token", null, Map.of("grant_type", "password")).json().get("error").asText())
                .isEqualTo("unsupported_grant_type");
        Answer unknownClient = form("/oidc/device/code", null, Map.of("client_id", "projects/x/locations/y/clusters/z"));
        assertThat(unknownClient.status()).isEqualTo(401);
        assertThat(unknownClient.json().get("error").asText()).isEqualTo("invalid_client");
    }

    @Test
    @Order(9)
    void no_code_or_token_shows_in_a_log_line_or_the_database() throws Exception {
        assertThat(secrets).hasSizeGreaterThan(5);
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent e : List.copyOf(logs.list)) {
            lines.add(e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage()));
        }
        StringBuilder dump = new StringBuilder();
        try (Connection c = DriverManager.getConnection(server.dbUrl); ResultSet rs = c.createStatement().executeQuery("SCRIPT")) {
            while (rs.next()) {
                dump.append(rs.getString(1)).append('\n');
            }
        }
        assertThat(dump).contains("sign_in_refresh");
        for (String secret : secrets) {
            assertThat(lines).noneMatch(l -> l.contains(secret));
            assertThat(dump.toString()).doesNotContain(secret);
        }
    }

    record Run(int exit, String out, String err) {}

    /** Runs a command in the throwaway home, its standard input empty and no terminal, as an agent or CI would. */
    static Run run(Path home, List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile());
        pb.environment().clear();
        pb.environment().put("HOME", home.toString());
        pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).as("%s ends", command).isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    static String userCode(String stderr) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("user_code=([A-Z]{4}-[A-Z]{4})").matcher(stderr);
        assertThat(m.find()).as("a sign-in link in: %s", stderr).isTrue();
        return m.group(1);
    }

    @Test
    @Order(10)
    void setup_sh_signs_in_in_the_background_and_kubectl_from_a_pipe_waits_on_a_fresh_link(@TempDir Path home) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Programs.find("kubectl").isPresent() && Programs.find("curl").isPresent(),
                "kubectl and curl are on the PATH");
        Path kube = Files.createDirectories(home.resolve(".kube"));
        Files.writeString(kube.resolve("config"), "apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n"
                + "    server: https://other.example\nusers:\n- name: other\n  user:\n    username: someone\ncontexts:\n"
                + "- name: other\n  context:\n    cluster: other\n    user: other\ncurrent-context: other\n");

        Run setup = run(home, List.of("sh", "-c", "curl -fsSL \"$SERVER/setup.sh\" | sh -s -- alice@acme.example only-acme"),
                Map.of("SERVER", base, "NC_TOKEN", ALICE));

        assertThat(setup.exit()).as(setup.err()).isZero();
        assertThat(setup.err()).contains(base + "/signin?user_code=").doesNotContain(ALICE);
        assertThat(setup.err().split("user_code=", -1)).as("one sign-in link: %s", setup.err()).hasSize(2);
        Path plugin = home.resolve(".local/bin/kubectl-nc");
        assertThat(Files.isExecutable(plugin)).isTrue();
        JsonNode merged = yaml(Files.readString(kube.resolve("config")));
        assertThat(merged.get("current-context").asText()).as("the current context is left as it was").isEqualTo("other");
        List<String> contexts = new ArrayList<>();
        merged.get("contexts").forEach(c -> contexts.add(c.get("name").asText()));
        assertThat(contexts).containsExactlyInAnyOrder("other", "only-acme");
        assertThat(Files.readString(kube.resolve("config"))).contains("https://other.example", "kubectl-nc").doesNotContain(ALICE);

        Answer approved = form("/signin", ALICE, Map.of("user_code", userCode(setup.err())));
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        Path cacheDir = home.resolve(".cache/nationalcompute");
        Instant deadline = Instant.now().plus(PATIENCE);
        while (!hasToken(cacheDir)) {
            assertThat(Instant.now()).as("the background sign-in lands its token").isBefore(deadline);
            pause(250);
        }
        assertThat(Files.getPosixFilePermissions(cacheDir)).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Path cached;
        try (var files = Files.list(cacheDir)) {
            cached = files.filter(f -> f.toString().endsWith(".token")).findFirst().orElseThrow();
        }
        assertThat(Files.getPosixFilePermissions(cached)).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

        // kubectl itself, through the plugin, against the simulated cluster that checks the ID token as kube-apiserver does
        Map<String, String> withPlugin = Map.of("PATH", home.resolve(".local/bin") + ":/usr/local/bin:/usr/bin:/bin");
        Run nodes = run(home, List.of(Programs.find("kubectl").orElseThrow(), "--context", "only-acme", "get", "nodes"), withPlugin);
        assertThat(nodes.exit()).as(nodes.err()).isZero();
        assertThat(nodes.out()).contains("Ready").contains("gke-");

        List<String> token = List.of(plugin.toString(), "token", "--server", base, "--client", audience());
        Run signedIn = run(home, token, Map.of());
        assertThat(signedIn.exit()).as(signedIn.err()).isZero();
        JsonNode credential = JSON.readTree(signedIn.out());
        assertThat(credential.get("kind").asText()).isEqualTo("ExecCredential");
        assertThat(credential.get("apiVersion").asText()).isEqualTo("client.authentication.k8s.io/v1");
        assertThat(credential.at("/status/expirationTimestamp").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
        String first = credential.at("/status/token").asText();
        assertThat(verified(first).getJWTClaimsSet().getSubject()).isEqualTo("user:alice@acme.example");

        // the cached ID token has run out: the plugin refreshes silently (the refresh token rotates; the ID token
        // may read the same as before when both were issued in the same second of the test's clock)
        String refreshBefore = Files.readAllLines(cached).get(2);
        expire(cached);
        Run refreshed = run(home, token, Map.of());
        assertThat(refreshed.exit()).as(refreshed.err()).isZero();
        assertThat(refreshed.err()).isEmpty();
        assertThat(verified(JSON.readTree(refreshed.out()).at("/status/token").asText()).getJWTClaimsSet().getSubject())
                .isEqualTo("user:alice@acme.example");
        List<String> afterRefresh = Files.readAllLines(cached);
        assertThat(afterRefresh.get(0)).as("a fresh expiry cached").isNotEqualTo("0");
        assertThat(afterRefresh.get(2)).as("the refresh token rotated").isNotEqualTo(refreshBefore);

        // a day without use: the refresh has lapsed, so kubectl run from a pipe, as an agent runs it, prints a
        // fresh link and waits on it; once a person approves, the same call answers
        clock.advance(Duration.ofDays(1).plusMinutes(1));
        expire(cached);
        Path piped = home.resolve("piped.txt");
        Process waiting = start(home, List.of("sh", "-c", "\"$KUBECTL\" --context only-acme get nodes 2>&1 | cat > \"$OUT\""),
                Map.of("PATH", withPlugin.get("PATH"), "KUBECTL", Programs.find("kubectl").orElseThrow().toString(), "OUT", piped.toString()));
        try {
            String link = awaitLink(piped, waiting);
            assertThat(waiting.isAlive()).as("kubectl waits on the link: %s", link).isTrue();
            Answer again = form("/signin", ALICE, Map.of("user_code", userCode(link)));
            assertThat(again.status()).as(again.body()).isEqualTo(200);
            assertThat(waiting.waitFor(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).as("kubectl answers once approved").isTrue();
            assertThat(waiting.exitValue()).as(Files.readString(piped)).isZero();
            assertThat(Files.readString(piped)).contains(base + "/signin?user_code=", "Ready");
        } finally {
            waiting.destroyForcibly();
        }

        // a denied link ends the wait with an error
        expire(cached);
        clock.advance(Duration.ofDays(1).plusMinutes(1));
        Path deniedOut = home.resolve("denied.txt");
        Process denying = start(home, List.of("sh", "-c", "\"$PLUGIN\" token --server \"$SERVER\" --client \"$CLIENT\" 2>&1 | cat > \"$OUT\""),
                Map.of("PLUGIN", plugin.toString(), "SERVER", base, "CLIENT", audience(), "OUT", deniedOut.toString()));
        try {
            Answer denied = form("/signin", ALICE, Map.of("user_code", userCode(awaitLink(deniedOut, denying)), "action", "deny"));
            assertThat(denied.status()).as(denied.body()).isEqualTo(200);
            assertThat(denying.waitFor(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).as("the plugin ends on the denial").isTrue();
            assertThat(Files.readString(deniedOut)).contains("the sign-in was denied").doesNotContain("ExecCredential");
        } finally {
            denying.destroyForcibly();
        }
    }

    /**
     * Somebody turns Identity Service for GKE off on a ready cluster, through GKE's API: the reconciler turns it back on
     * with one update of its own, the cluster reads ready again, and a person signs in and reaches the cluster with the
     * ID token.
     */
    @Test
    @Order(11)
    void a_cluster_whose_identity_service_was_turned_off_at_gke_gets_it_back_and_its_people_sign_in_again() {
        GkeSimulator gke = server.server().simulator().orElseThrow();
        long updatesBefore = gke.grpcCalls().getOrDefault("UpdateCluster", 0L);
        ClusterLocator at = identityServiceTurnedOffAtGke(gke);

        Instant deadline = Instant.now().plus(PATIENCE);
        while (gke.grpcCalls().getOrDefault("UpdateCluster", 0L) < updatesBefore + 2 || !gke.identityService(at.project(), at.location(), at.name())) {
            assertThat(Instant.now()).as("the reconciler turns Identity Service back on in time").isBefore(deadline);
            pause(200);
        }
        awaitReady("acme", onlyAcme);
        assertThat(gke.grpcCalls().get("UpdateCluster")).as("one update of the platform's, after the one that turned it off")
                .isEqualTo(updatesBefore + 2);

        JsonNode kubeconfig = yaml(get("/api/k8s/cluster/kubeconfig?cluster=only-acme", ALICE).body());
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(kubeconfig.at("/clusters/0/cluster/server").asText())
                .withCaCertData(kubeconfig.at("/clusters/0/cluster/certificate-authority-data").asText())
                .withOauthToken(signIn(ALICE).get("id_token").asText()).build();
        try (KubernetesClient cluster = new KubernetesClientBuilder().withConfig(config).build()) {
            assertThat(cluster.nodes().list().getItems()).as("the cluster trusts the ID token again").isNotEmpty();
        }
    }

    /**
     * GKE refuses to turn Identity Service for GKE back on (as for an organization it no longer offers it to): the cluster
     * reads ready with GKE's reason as its message, approving a sign-in answers 409 with that cause, GKE is not asked again
     * on the next passes, and an hour later it is asked again and the people sign in.
     */
    @Test
    @Order(12)
    void gke_refusing_identity_service_leaves_the_cluster_ready_with_the_reason_and_sign_in_says_why_until_asked_again_an_hour_later() {
        GkeSimulator gke = server.server().simulator().orElseThrow();
        ClusterLocator at = identityServiceTurnedOffAtGke(gke);
        String reason = "Identity Service for GKE is not offered to this organization.";
        gke.failNextCalls("UpdateCluster", 1, "FAILED_PRECONDITION", reason);
        long updatesBefore = gke.grpcCalls().getOrDefault("UpdateCluster", 0L);

        Instant deadline = Instant.now().plus(PATIENCE);
        JsonNode cluster = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", onlyAcme)).json();
        while (!cluster.path("message").asText().contains(reason)) {
            assertThat(Instant.now()).as("the refusal is recorded in time").isBefore(deadline);
            pause(200);
            cluster = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", onlyAcme)).json();
        }
        assertThat(cluster.get("state").asText()).isEqualTo("ready");
        assertThat(cluster.get("message").asText()).contains("cannot work until it is on");

        JsonNode code = startSignIn();
        Answer refused = form("/signin", ALICE, Map.of("user_code", code.get("user_code").asText()));
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.body()).contains(reason);

        long looks = gke.grpcCalls().getOrDefault("GetCluster", 0L);
        while (gke.grpcCalls().getOrDefault("GetCluster", 0L) < looks + 9) {
            assertThat(Instant.now()).as("the reconciler keeps looking").isBefore(deadline.plus(PATIENCE));
            pause(200);
        }
        assertThat(gke.grpcCalls().get("UpdateCluster")).as("the refused update, not asked again meanwhile").isEqualTo(updatesBefore + 1);
        assertThat(gke.identityService(at.project(), at.location(), at.name())).isFalse();

        clock.advance(Duration.ofHours(1));
        Instant again = Instant.now().plus(PATIENCE);
        while (!gke.identityService(at.project(), at.location(), at.name())) {
            assertThat(Instant.now()).as("asked again an hour later").isBefore(again);
            pause(200);
        }
        awaitReady("acme", onlyAcme);
        assertThat(gke.grpcCalls().get("UpdateCluster")).isEqualTo(updatesBefore + 2);
        assertThat(signIn(ALICE).get("id_token").asText()).isNotEmpty();
    }

    /**
     * GKE refuses Identity Service for GKE at create (an organization it does not offer it to): the cluster is created
     * without it, with one more CreateCluster, and reads ready with GKE's reason as its message.
     */
    @Test
    @Order(13)
    void a_cluster_whose_create_gke_refuses_identity_service_for_is_created_without_it_and_ready_with_the_reason() {
        GkeSimulator gke = server.server().simulator().orElseThrow();
        gke.refuseIdentityService("*");
        try {
            long creates = gke.grpcCalls().getOrDefault("CreateCluster", 0L);
            String id = create(ALICE, "acme", "no-identity-service");
            awaitReady("acme", id);
            JsonNode cluster = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
            assertThat(cluster.get("message").asText())
                    .startsWith("GKE refused to turn on Identity Service for GKE: Identity Service for GKE is not available to the organization")
                    .contains("cannot work until it is on");
            assertThat(gke.grpcCalls().get("CreateCluster")).as("the refused create and the one without it").isEqualTo(creates + 2);
        } finally {
            gke.clearFaults();
        }
    }

    /** Somebody turns Identity Service for GKE off on {@code only-acme} through GKE's API; returns where the cluster is. */
    ClusterLocator identityServiceTurnedOffAtGke(GkeSimulator gke) {
        String[] path = audience().split("/");
        ClusterLocator at = new ClusterLocator(path[1], path[3], path[5]);
        try (GkeClusterProvider someoneElse = GkeClusterProviders.grpc(new Endpoint(gke.grpcTarget(), Transport.PLAINTEXT, null))) {
            someoneElse.updateCluster(at, new ClusterChange.IdentityService(false));
        }
        return at;
    }

    /** Starts a command in the throwaway home, as {@link #run} does, without waiting for it. */
    static Process start(Path home, List<String> command, Map<String, String> env) throws java.io.IOException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile());
        pb.environment().clear();
        pb.environment().put("HOME", home.toString());
        pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        return pb.start();
    }

    /** What the command has written once it shows a sign-in link, within {@link #PATIENCE}. */
    static String awaitLink(Path out, Process p) throws java.io.IOException {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (true) {
            String text = Files.exists(out) ? Files.readString(out) : "";
            if (text.contains("user_code=")) {
                return text;
            }
            assertThat(p.isAlive()).as("the command still runs: %s", text).isTrue();
            assertThat(Instant.now()).as("a sign-in link within %s: %s", PATIENCE, text).isBefore(deadline);
            pause(250);
        }
    }

    static boolean hasToken(Path dir) throws java.io.IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (var files = Files.list(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".token"));
        }
    }

    /** Sets the cached token's expiry (its first line) in the past. */
    static void expire(Path cached) throws java.io.IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(cached));
        lines.set(0, "0");
        Files.write(cached, lines);
    }
}
