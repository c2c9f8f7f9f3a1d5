package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15's story on the embedded default (the server in a process of its own, its PostgreSQL and its GKE
 * simulator under the test's {@code ./data}), killed with SIGKILL twice: once while the market's node pools
 * are being made for acme's 16-GPU Job, once after the Job ended while its idle nodes are due to leave. After
 * each restart the story completes — two Ready nodes, the pods Running, charges; then no market node pool
 * left — and the provider's own record of operations shows each market node pool created once and deleted
 * once: nothing left behind, nothing made twice.
 */
class MarketJobSurvivesSigkillTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final String PROJECT = "platform-prod";
    static final String LOCATION = "us-central1-a";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path work;

    ServerProcess server;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.kill();
        }
        ServerProcess.stopEmbeddedPostgres(work);
    }

    @Test
    void the_story_completes_after_sigkills_with_no_node_pool_left_behind_or_made_twice() throws Exception {
        Path catalog = MarketJobEndToEndTest.catalog();
        Path log = work.resolve("server.log");
        List<String> args = List.of("--port", "0", "--catalog", catalog.toString(), "--sim-operation-seconds", "1",
                "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "2", "--market-tick-seconds", "1",
                "--replica-id", "market-story-crash-test");
        server = ServerProcess.start(work, log, args);

        String clusterId = post("create", RunningServer.ALICE, ClustersApiContract.standard("acme", "train")).get("id").asText();
        JsonNode train = await("train is ready", () -> {
            JsonNode c = post("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", clusterId));
            return "ready".equals(c.path("state").asText()) ? c : null;
        });
        String providerName = train.get("providerName").asText();
        String kubeconfig = post("credentials", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", clusterId,
                "role", "admin")).get("kubeconfig").asText();
        Path kubeconfigFile = work.resolve("acme.kubeconfig");
        Files.writeString(kubeconfigFile, kubeconfig, StandardCharsets.UTF_8);

        try (KubernetesClient a = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
            MarketJobEndToEndTest.platformObjectsAreIn(a);
            MarketJobEndToEndTest.apply(a, kubeconfigFile, MarketJobEndToEndTest.job("train", "20s"));
            await("the job's ProvisioningRequest", () -> MarketJobEndToEndTest.only(MarketJobEndToEndTest.requests(a)));
            assertThat(send("PUT", "/api/k8s/bid", RunningServer.ALICE, "{\"cluster\":\"train\",\"limit_price\":\"2.40\"}")
                    .statusCode()).isEqualTo(200);

            // First kill: as soon as the provider has begun making the market's node pools.
            await("a market node pool at the provider", () -> marketPools(providerName).isEmpty() ? null : true);
            server.kill();
            server = ServerProcess.start(work, log, args);

            await("two mk- node pools at the provider", () -> marketPools(providerName).size() == 2 ? true : null);
            List<Node> nodes = await("two Ready market nodes", () -> {
                List<Node> n = a.nodes().withLabel(MarketJobEndToEndTest.REQUEST_LABEL).list().getItems();
                return n.size() == 2 && n.stream().allMatch(MarketJobEndToEndTest::ready) ? n : null;
            });
            List<Pod> running = await("the Job's pods Running on them", () -> {
                List<Pod> p = MarketJobEndToEndTest.pods(a, "train");
                return p.size() == 2 && p.stream().allMatch(x -> "Running".equals(x.getStatus().getPhase())) ? p : null;
            });
            assertThat(running).extracting(p -> p.getSpec().getNodeName())
                    .containsExactlyInAnyOrderElementsOf(nodes.stream().map(n -> n.getMetadata().getName()).toList());
            await("charges in acme's balance", () -> {
                JsonNode balance = read("/api/k8s/balance", RunningServer.ALICE);
                return new BigDecimal(balance.get("charged").asText()).signum() > 0 ? true : null;
            });

            // Second kill: the Job ended, its nodes are idle and due to leave after the hold and the grace.
            await("the Job completes", () -> {
                Job j = a.batch().v1().jobs().inNamespace("default").withName("train").get();
                return j.getStatus() != null && j.getStatus().getConditions().stream()
                        .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus())) ? true : null;
            });
            server.kill();
            server = ServerProcess.start(work, log, args);

            await("the idle nodes leave the cluster and the provider", () ->
                    a.nodes().withLabel(MarketJobEndToEndTest.REQUEST_LABEL).list().getItems().isEmpty()
                            && marketPools(providerName).isEmpty() ? true : null);
        }

        Map<String, Integer> creates = new HashMap<>();
        Map<String, Integer> deletes = new HashMap<>();
        for (JsonNode op : operations()) {
            String target = op.path("targetLink").asText();
            if (!target.contains("/clusters/" + providerName + "/nodePools/mk-")) {
                continue;
            }
            String pool = target.substring(target.lastIndexOf('/') + 1);
            switch (op.path("operationType").asText()) {
                case "CREATE_NODE_POOL" -> creates.merge(pool, 1, Integer::sum);
                case "DELETE_NODE_POOL" -> deletes.merge(pool, 1, Integer::sum);
                default -> { }
            }
        }
        assertThat(creates).as("each market node pool created once").hasSize(2).allSatisfy((pool, n) -> assertThat(n).isOne());
        assertThat(deletes).as("each market node pool deleted once").isEqualTo(creates);
    }

    /** The cluster's node pools whose names the market made, as the simulator's GKE REST API lists them. */
    List<String> marketPools(String cluster) {
        JsonNode pools = simulator("/v1/projects/" + PROJECT + "/locations/" + LOCATION + "/clusters/" + cluster + "/nodePools");
        List<String> names = new ArrayList<>();
        for (JsonNode p : pools.path("nodePools")) {
            if (p.path("name").asText().startsWith("mk-")) {
                names.add(p.path("name").asText());
            }
        }
        return names;
    }

    /** Every operation the provider ran in the location, across the restarts (its state is kept under ./data). */
    JsonNode operations() {
        return simulator("/v1/projects/" + PROJECT + "/locations/" + LOCATION + "/operations").path("operations");
    }

    JsonNode simulator(String path) {
        assertThat(server.simulatorRest()).as("the embedded simulator's banner").isNotNull();
        return ok(exchange(HttpRequest.newBuilder(URI.create(server.simulatorRest() + path)).GET()));
    }

    JsonNode post(String method, String token, Object body) {
        try {
            return ok(send("POST", "/api/compute/kubernetesClusters/" + method, token, JSON.writeValueAsString(body)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    JsonNode read(String path, String token) {
        return ok(exchange(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).header("Authorization", "Bearer " + token).GET()));
    }

    HttpResponse<String> send(String method, String path, String token, String body) {
        return exchange(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body)));
    }

    static JsonNode ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static HttpResponse<String> exchange(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
