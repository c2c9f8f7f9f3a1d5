package com.bettercompute.bootstrap.e2e;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.domain.cluster.Ids;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.bootstrap.e2e.RunningServer.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code credentials} on the embedded default, whole: a cluster made ready by the reconciler on the GKE
 * simulator, whose Kubernetes API (the simulated one of adapters-k8s) mints the tokens; the kubeconfigs
 * used by the real {@code kubectl} where it is installed. Logs and events of the run are searched for
 * the tokens.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CredentialsEndToEndTest {
    static final Duration PATIENCE = Duration.ofSeconds(60);
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    RunningServer server;
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logger access = (Logger) LoggerFactory.getLogger("better-compute.access");
    final List<String> tokens = new ArrayList<>();
    String clusterId;
    JsonNode cluster;

    @BeforeAll
    void start() {
        logs.start();
        root.addAppender(logs);
        access.addAppender(logs); // the access lines do not go up to the root (logback.xml)
        server = RunningServer.withReconciler(h2(), 1);
        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", "creds-e2e"));
        body.put("nodePools", List.of(Map.of("name", "gpu", "machineType", "a3-highgpu-8g", "nodeCount", 2)));
        clusterId = server.call("create", ALICE, body).json().get("id").asText();
        cluster = awaitReady(clusterId);
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

    JsonNode awaitReady(String id) {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (true) {
            JsonNode c = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
            if (c.get("state").asText().equals("ready")) {
                return c;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("cluster " + id + " never became ready; last seen: " + c);
            }
            ReconcilerEndToEndTest.pause(Duration.ofMillis(200));
        }
    }

    Map<String, Object> ask(String role) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", "acme");
        body.put("clusterId", clusterId);
        if (role != null) {
            body.put("role", role);
        }
        return body;
    }

    @Test
    void each_role_gives_a_kubeconfig_that_kubectl_uses_to_list_the_nodes(@TempDir Path dir) throws Exception {
        assertThat(cluster.get("endpoint").asText()).startsWith("127.0.0.1:").contains("/clusters/");
        for (String role : new String[]{null, "view", "edit", "admin"}) {
            Instant before = Instant.now();
            RunningServer.Reply reply = server.call("credentials", ALICE, ask(role));
            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
            JsonNode answer = reply.json();
            assertThat(answer.get("role").asText()).isEqualTo(role == null ? "view" : role);
            Instant expires = Instant.parse(answer.get("expiresAt").asText());
            assertThat(expires).isBetween(before.plusSeconds(3599), Instant.now().plusSeconds(3601));
            JsonNode kubeconfig = YAML.readTree(answer.get("kubeconfig").asText());
            assertThat(kubeconfig.get("clusters")).hasSize(1);
            assertThat(kubeconfig.get("users")).hasSize(1);
            assertThat(kubeconfig.get("contexts")).hasSize(1);
            assertThat(kubeconfig.get("current-context").asText()).isEqualTo(kubeconfig.get("contexts").get(0).get("name").asText());
            assertThat(kubeconfig.get("clusters").get(0).get("cluster").get("server").asText()).isEqualTo("https://" + cluster.get("endpoint").asText());
            tokens.add(kubeconfig.get("users").get(0).get("user").get("token").asText());

            Path file = dir.resolve("kubeconfig-" + role);
            Files.writeString(file, answer.get("kubeconfig").asText());
            Kubectl run = kubectl(dir, file, "get", "nodes", "-o", "name", "-l", "cloud.google.com/gke-nodepool=gpu");
            assertThat(run.exit()).as(run.output()).isZero();
            assertThat(run.output().lines().filter(l -> l.startsWith("node/")).count()).as(run.output()).isEqualTo(2);
            Path namespace = dir.resolve("ns-" + role + ".yaml");
            Files.writeString(namespace, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-" + role + "\n");
            Kubectl create = kubectl(dir, file, "create", "-f", namespace.toString(), "--validate=false");
            if ("admin".equals(role)) {
                assertThat(create.exit()).as(create.output()).isZero();
            } else {
                assertThat(create.output()).as(role).contains("Forbidden");
            }
        }
        // one account per role: view asked twice is one account
        SimulatedKubernetesApis apis = server.server().kubernetesApis().orElseThrow();
        assertThat(apis.startedClusters()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void refused_cases_over_http() {
        assertThat(server.call("credentials", DAVE, ask("view")).status()).isEqualTo(200);
        assertThat(server.call("credentials", DAVE, ask("edit")).code()).isEqualTo("ACCESS_DENIED");
        assertThat(server.call("credentials", DAVE, ask("admin")).code()).isEqualTo("ACCESS_DENIED");
        // bob's binding reaches autopilot clusters only
        assertThat(server.call("credentials", BOB, ask("view")).code()).isEqualTo("ACCESS_DENIED");
        assertThat(server.call("credentials", CAROL, ask("view")).code()).isEqualTo("ACCESS_DENIED");
        assertThat(server.call("credentials", null, ask("view")).status()).isEqualTo(401);
        Map<String, Object> tooShort = ask("view");
        tooShort.put("ttlSeconds", 599);
        assertThat(server.call("credentials", ALICE, tooShort).code()).isEqualTo("INVALID_INPUT");
        Map<String, Object> badRole = ask("owner");
        assertThat(server.call("credentials", ALICE, badRole).code()).isEqualTo("INVALID_INPUT");
        Map<String, Object> unknown = ask("view");
        unknown.put("clusterId", "kcl_00000000000000000000000000");
        assertThat(server.call("credentials", ALICE, unknown).code()).isEqualTo("NOT_FOUND");

        Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", "creds-pending"));
        String pending = server.call("create", ALICE, body).json().get("id").asText();
        RunningServer.Reply notReady = server.call("credentials", ALICE, Map.of("tenantId", "acme", "clusterId", pending));
        assertThat(notReady.code()).as(notReady.text()).isEqualTo("INVALID_STATE");
        server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", pending));
    }

    @Test
    void a_token_past_its_expiry_is_refused(@TempDir Path dir) throws Exception {
        SimulatedKubernetesApis apis = server.server().kubernetesApis().orElseThrow();
        String[] at = cluster.get("endpoint").asText().split("/clusters/", 2)[1].split("/");
        // The API allows 600 s at least: a token this short can only be minted at the simulated API directly.
        RunningServer.Reply reply = server.call("credentials", ALICE, ask("view"));
        String account = "bc-u-" + Ids.sha256Hex("user:alice@acme.example").substring(0, 16) + "-view";
        SimulatedKubernetesApis.Minted minted = apis.mint(at[0], at[1], at[2], "better-compute-system", account, Duration.ofSeconds(3));
        tokens.add(minted.token());
        String kubeconfig = reply.json().get("kubeconfig").asText();
        String issued = YAML.readTree(kubeconfig).get("users").get(0).get("user").get("token").asText();
        tokens.add(issued);
        Path file = dir.resolve("short");
        Files.writeString(file, kubeconfig.replace(issued, minted.token()));

        Kubectl fresh = kubectl(dir, file, "get", "nodes", "-o", "name");
        assertThat(fresh.exit()).as(fresh.output()).isZero();
        Duration left = Duration.between(Instant.now(), minted.expiresAt()).plusMillis(500);
        if (!left.isNegative()) {
            Thread.sleep(left.toMillis());
        }
        Kubectl expired = kubectl(dir, file, "get", "nodes", "-o", "name");
        assertThat(expired.exit()).isNotZero();
        assertThat(expired.output()).containsIgnoringCase("unauthorized");
        // the kubeconfig as issued still works
        Files.writeString(file, kubeconfig);
        assertThat(kubectl(dir, file, "get", "nodes", "-o", "name").exit()).isZero();
    }

    @Test
    void the_token_is_never_logged_published_or_stored() throws Exception {
        for (String role : List.of("view", "edit", "admin")) {
            String kubeconfig = server.call("credentials", ALICE, ask(role)).json().get("kubeconfig").asText();
            tokens.add(YAML.readTree(kubeconfig).get("users").get(0).get("user").get("token").asText());
        }
        String events = server.get("/api/events?limit=1000", OPS).text();
        assertThat(events).contains("kubernetes.cluster.credentials-issued").contains("system:serviceaccount:better-compute-system:bc-u-");
        String dump = SecretsStayOutTest.databaseDump(server.dbUrl);
        assertThat(tokens).hasSizeGreaterThanOrEqualTo(3);
        String adminToken = server.server().kubernetesApis().orElseThrow().adminToken();
        List<ILoggingEvent> captured = List.copyOf(logs.list);
        assertThat(captured).anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("credentials issued"));
        for (String token : concat(tokens, adminToken)) {
            assertThat(events).doesNotContain(token);
            assertThat(dump).doesNotContain(token);
            for (ILoggingEvent e : captured) {
                assertThat(e.getFormattedMessage()).doesNotContain(token);
                assertThat(throwableText(e.getThrowableProxy())).doesNotContain(token);
            }
        }
    }

    private static List<String> concat(List<String> list, String one) {
        List<String> all = new ArrayList<>(list);
        all.add(one);
        return all;
    }

    private static String throwableText(IThrowableProxy t) {
        StringBuilder s = new StringBuilder();
        for (IThrowableProxy p = t; p != null; p = p.getCause()) {
            s.append(p.getClassName()).append(": ").append(p.getMessage()).append('\n');
        }
        return s.toString();
    }

    record Kubectl(int exit, String output) {}

    /** Runs the real kubectl (skips the test when it is not installed), with its discovery cache in {@code dir}. */
    static Kubectl kubectl(Path dir, Path kubeconfig, String... args) throws IOException, InterruptedException {
        Assumptions.assumeTrue(Programs.find("kubectl").isPresent(), "kubectl is not on PATH: the kubeconfig is not tried with the real client");
        List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", dir.resolve("kube-cache").toString(), "--request-timeout", "20s"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("kubectl did not finish: " + command);
        }
        return new Kubectl(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }


}
