package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.bootstrap.Server;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static com.bettercompute.bootstrap.e2e.RunningServer.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two replicas behind one address (a {@link FrontDoor}, the platform's public URL and the clusters' OpenID
 * Connect issuer) on one PostgreSQL, as people use them: a person signs in to the console and to a cluster with
 * {@code kubectl} through one replica, then uses the console and {@code kubectl} through the other; both replicas
 * restart, and the same cookie and the same sign-in still work; a sign-out through one ends the session on the
 * other; a rotation of the signing keys made by one is published by both before it signs; a replica given another
 * key-encryption key does not start. Replica A runs the GKE simulator (with its clusters' Kubernetes APIs, kept in
 * its data directory across the restart) and the reconciler; replica B serves people only, its provider A's
 * simulator.
 *
 * <p>About 30 s on a quiet machine: two replicas started twice, a cluster made ready, and the real {@code kubectl}
 * and {@code curl} through the plugin; it is the one test of the replicated deployment as people meet it.
 */
class SessionsAndSigningKeysAcrossReplicasTest {
    static final Pattern CSRF = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");
    static final String CLUSTER = "both-replicas";

    final SignInEndToEndTest.OffsetClock clock = new SignInEndToEndTest.OffsetClock();

    /** A browser behind the front door: no redirects followed, the console's cookie once signed in. */
    static final class Browser {
        final String base;
        String cookie;
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

        Browser(String base) {
            this.base = base;
        }

        /** After the front door chose another replica: new connections, the same cookie. */
        void reconnect() {
            http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        }

        HttpResponse<String> get(String path) {
            return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
        }

        HttpResponse<String> post(String path, Map<String, String> form) {
            String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                    + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
            return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Origin", base).POST(HttpRequest.BodyPublishers.ofString(body)));
        }

        private HttpResponse<String> send(HttpRequest.Builder r) {
            if (cookie != null) {
                r.header("Cookie", cookie);
            }
            try {
                HttpResponse<String> answer = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
                answer.headers().firstValue("set-cookie").ifPresent(set -> cookie = set.substring(0, set.indexOf(';')));
                return answer;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        String csrf(String path) {
            HttpResponse<String> page = get(path);
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            Matcher m = CSRF.matcher(page.body());
            assertThat(m.find()).as("a form on %s", path).isTrue();
            return m.group(1);
        }
    }

    ServerConfig replicaA(String db, Path dataDir, FrontDoor front, KeyEncryptionKey kek) {
        return ServerConfig.defaults().withPort(0).withDb(db).withCatalog(RunningServer.catalogFile())
                .withProvider("simulator", null, 1, 1, 2).withDataDir(dataDir).withPublicUrl(front.url()).withKeyEncryptionKey(kek);
    }

    ServerConfig replicaB(String db, RunningServer a, FrontDoor front, KeyEncryptionKey kek) {
        return ServerConfig.defaults().withPort(0).withDb(db).withCatalog(RunningServer.catalogFile())
                .withProvider("simulator", a.server().simulator().orElseThrow().grpcTarget(), 1, 1, 2).withoutReconciler()
                .withPublicUrl(front.url()).withKeyEncryptionKey(kek);
    }

    @Test
    void a_person_signed_in_through_one_replica_uses_the_console_and_kubectl_through_the_other_and_both_restart(@TempDir Path dir)
            throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Programs.find("kubectl").isPresent() && Programs.find("curl").isPresent(),
                "kubectl and curl are on the PATH");
        String db = RunningServer.postgres();
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        Path home = Files.createDirectories(dir.resolve("home"));
        List<RunningServer> running = new ArrayList<>();
        try (FrontDoor front = FrontDoor.start()) {
            RunningServer a = started(running, replicaA(db, dir.resolve("a"), front, kek));
            RunningServer b = started(running, replicaB(db, a, front, kek));
            front.routeTo(a);
            String id = a.call("create", ALICE, ClustersApiContract.standard("acme", CLUSTER)).json().get("id").asText();
            ReplicasTest.await(a, id, "ready");

            // ---- through A: the console's sign-in, and kubectl's (the setup script, approved by a person) ----
            Browser browser = new Browser(front.url());
            assertThat(browser.post("/console/sign-in", Map.of("token", ALICE)).statusCode()).isEqualTo(303);
            assertThat(browser.cookie).startsWith("bc_console=");
            SignInEndToEndTest.Run setup = SignInEndToEndTest.run(home, List.of("sh", "-c",
                    "curl -fsSL \"$SERVER/setup.sh\" | sh -s -- alice@acme.example " + CLUSTER), Map.of("SERVER", front.url(), "NC_TOKEN", ALICE));
            assertThat(setup.exit()).as(setup.err()).isZero();
            Path cacheDir = home.resolve(".cache/nationalcompute");
            approve(front, SignInEndToEndTest.userCode(setup.err()));
            awaitToken(cacheDir);
            Path cached = cachedToken(cacheDir);

            // ---- through B: the same cookie is signed in, and kubectl's fresh token (signed by B) opens the cluster ----
            front.routeTo(b);
            browser.reconnect();
            HttpResponse<String> clusters = browser.get("/console/clusters");
            assertThat(clusters.statusCode()).as("the session A opened, on B").isEqualTo(200);
            assertThat(clusters.body()).contains("user:alice@acme.example", CLUSTER);
            SignInEndToEndTest.expire(cached);
            assertThat(kubectlGetNodes(home)).contains("Ready");
            String signedByB = Files.readAllLines(cached).get(1);
            assertThat(jwks(a)).as("both replicas publish the same keys").isEqualTo(jwks(b)).contains(kid(signedByB));

            // ---- both restart (B first, then A), and B again on A's simulator ----
            front.routeTo(a);
            b.close();
            running.remove(b);
            a.close();
            running.remove(a);
            a = started(running, replicaA(db, dir.resolve("a"), front, kek));
            b = started(running, replicaB(db, a, front, kek));
            front.routeTo(b);
            browser.reconnect();

            assertThat(browser.get("/console/clusters").statusCode()).as("the session survives both restarts").isEqualTo(200);
            assertThat(jwks(b)).as("a token signed before the restarts still verifies").contains(kid(signedByB));
            assertThat(kubectlGetNodes(home)).as("the cached token, against keys the cluster reads from B").contains("Ready");
            SignInEndToEndTest.expire(cached);
            assertThat(kubectlGetNodes(home)).as("refreshed through B after the restarts").contains("Ready");
            assertThat(kid(Files.readAllLines(cached).get(1))).as("the same key signs after the restarts").isEqualTo(kid(signedByB));

            // ---- a sign-out through A ends the session on B ----
            String csrf = browser.csrf("/console/clusters");
            front.routeTo(a);
            browser.reconnect();
            assertThat(browser.post("/console/sign-out", Map.of("_csrf", csrf)).statusCode()).isEqualTo(303);
            front.routeTo(b);
            browser.reconnect();
            assertThat(browser.get("/console/clusters").statusCode()).as("signed out on B too").isEqualTo(303);

            // ---- a rotation: made by whichever replica finds it due, published by both before it signs ----
            clock.advance(Duration.ofDays(30).minusHours(1));
            List<String> rotated = jwks(b);
            assertThat(rotated).hasSize(2).contains(kid(signedByB));
            awaitJwks(a, rotated);
            clock.advance(Duration.ofHours(1));
            String afterRotation = deviceSignIn(front, a, b);
            assertThat(kid(afterRotation)).isNotEqualTo(kid(signedByB)).isIn(rotated);
            assertThat(jwks(a)).as("the old key stays published while its tokens may live").isEqualTo(rotated);
            clock.advance(Duration.ofMinutes(20));
            assertThat(jwks(b)).containsExactly(kid(afterRotation));
            awaitJwks(a, List.of(kid(afterRotation)));
        } finally {
            for (RunningServer r : running) {
                r.close();
            }
        }
    }

    @Test
    void a_replica_given_another_key_encryption_key_does_not_start_and_says_why_naming_ids_only() {
        String db = RunningServer.h2();
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        KeyEncryptionKey other = KeyEncryptionKey.random();
        ServerConfig config = ServerConfig.defaults().withPort(0).withDb(db).withCatalog(RunningServer.catalogFile()).withoutReconciler();
        RunningServer.start(config.withKeyEncryptionKey(kek)).close();

        assertThatThrownBy(() -> Server.start(config.withKeyEncryptionKey(other), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(kek.id()).hasMessageContaining(other.id()).hasMessageContaining("--key-encryption-key")
                .message().doesNotContain(kek.base64(), other.base64());
        RunningServer.start(config.withKeyEncryptionKey(kek)).close();
    }

    RunningServer started(List<RunningServer> running, ServerConfig config) {
        RunningServer r = RunningServer.start(config, clock);
        running.add(r);
        return r;
    }

    static void approve(FrontDoor front, String userCode) throws Exception {
        HttpResponse<String> approved = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(front.url() + "/signin"))
                .header("Authorization", "Bearer " + ALICE).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"user_code\":\"" + userCode + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
    }

    static void awaitToken(Path cacheDir) throws Exception {
        Instant deadline = Instant.now().plus(SignInEndToEndTest.PATIENCE);
        while (!SignInEndToEndTest.hasToken(cacheDir)) {
            assertThat(Instant.now()).as("the background sign-in lands its token").isBefore(deadline);
            SignInEndToEndTest.pause(250);
        }
    }

    static Path cachedToken(Path cacheDir) throws Exception {
        try (var files = Files.list(cacheDir)) {
            return files.filter(f -> f.toString().endsWith(".token")).findFirst().orElseThrow();
        }
    }

    static String kubectlGetNodes(Path home) throws Exception {
        SignInEndToEndTest.Run nodes = SignInEndToEndTest.run(home, List.of(Programs.find("kubectl").orElseThrow(), "--context", CLUSTER,
                "get", "nodes"), Map.of("PATH", home.resolve(".local/bin") + ":/usr/local/bin:/usr/bin:/bin"));
        assertThat(nodes.exit()).as(nodes.err()).isZero();
        return nodes.out();
    }

    static String kid(String idToken) throws Exception {
        return SignedJWT.parse(idToken).getHeader().getKeyID();
    }

    /** The kids one replica publishes, asked directly (not through the front door). */
    static List<String> jwks(RunningServer replica) throws Exception {
        return JWKSet.parse(replica.get("/oidc/jwks", null).text()).getKeys().stream().map(k -> k.getKeyID()).sorted().toList();
    }

    /** Waits until the replica publishes {@code kids}: another replica's rotation reaches it by PostgreSQL's notification. */
    static void awaitJwks(RunningServer replica, List<String> kids) throws Exception {
        List<String> sorted = kids.stream().sorted().toList();
        Instant deadline = Instant.now().plusSeconds(20);
        while (!jwks(replica).equals(sorted)) {
            assertThat(Instant.now()).as("%s published by the other replica", kids).isBefore(deadline);
            SignInEndToEndTest.pause(50);
        }
    }

    /** A sign-in by the device grant: the code asked for through B, approved on A (which reaches the cluster), redeemed through B. */
    String deviceSignIn(FrontDoor front, RunningServer a, RunningServer b) throws Exception {
        front.routeTo(b);
        String audience = audience(b);
        HttpClient http = HttpClient.newHttpClient();
        JsonNode code = RunningServer.JSON.readTree(http.send(form(front.url() + "/oidc/device/code", Map.of("client_id", audience)),
                HttpResponse.BodyHandlers.ofString()).body());
        front.routeTo(a);
        approve(front, code.get("user_code").asText());
        front.routeTo(b);
        clock.advance(Duration.ofSeconds(10));
        HttpResponse<String> tokens = HttpClient.newHttpClient().send(form(front.url() + "/oidc/token",
                Map.of("grant_type", "urn:ietf:params:oauth:grant-type:device_code", "device_code", code.get("device_code").asText())),
                HttpResponse.BodyHandlers.ofString());
        assertThat(tokens.statusCode()).as(tokens.body()).isEqualTo(200);
        return RunningServer.JSON.readTree(tokens.body()).get("id_token").asText();
    }

    static String audience(RunningServer replica) {
        String kubeconfig = replica.get("/api/k8s/cluster/kubeconfig?cluster=" + CLUSTER, ALICE).text();
        List<String> args = new ArrayList<>();
        SignInEndToEndTest.yaml(kubeconfig).at("/users/0/user/exec/args").forEach(x -> args.add(x.asText()));
        return args.get(args.indexOf("--client") + 1);
    }

    static HttpRequest form(String url, Map<String, String> fields) {
        Map<String, String> ordered = new LinkedHashMap<>(fields);
        String body = ordered.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
