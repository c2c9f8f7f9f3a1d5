package com.bettercompute.bootstrap.e2e;

import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.PROVREQS;
import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.WORKLOADS;
import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.conditionStatus;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15's story on the real server (embedded H2, the in-process GKE simulator whose clusters play Kueue,
 * the Job controller, the scheduler and the kubelets; the market ticking every second with fast durations):
 * no Kueue object is written by hand. Acme applies a 16-GPU Job (with the real {@code kubectl} when it is on
 * the PATH): Kueue's Workload and ProvisioningRequest appear and the request reads {@code BidTooLow}; a limit
 * set over HTTP gets it two {@code mk-} node pools at the provider, two Ready nodes and its pods Running, and
 * charges. Globex, in its own cluster, outbids it on the two-node pool: acme's request gets the notice, its
 * pods the annotation and the eviction (every NodePreempting Event of its nodes and pods at the notice's one moment), its
 * Job is requeued as the next attempt, globex's pods run; globex's
 * Job ends, and its nodes leave after the minimum hold and the idle grace.
 */
class MarketJobEndToEndTest {
    /** The market API test's pool with supply for one 16-GPU gang only, and holds and windows of seconds. */
    static final String MARKET = MarketApiEndToEndTest.MARKET
            .replace("{notice: 10s, minimumHold: 2m, protectionWindow: 4m, idleGrace: 30s}",
                    "{notice: 10s, minimumHold: 5s, protectionWindow: 5s, idleGrace: 5s}")
            .replace("nodes: 4\n", "nodes: 2\n");
    static final String REQUEST_LABEL = "nationalcompute.com/request";

    static Path catalog() throws IOException {
        Path file = RunningServer.catalogFile();
        String text = Files.readString(file, StandardCharsets.UTF_8)
                .replace("  - id: acme\n    maxClusters: 10\n",
                        "  - id: acme\n    maxClusters: 10\n    credits: \"500\"\n    market: {maxClusterGpus: 32}\n")
                .replace("  - id: globex\n    maxClusters: 3\n",
                        "  - id: globex\n    maxClusters: 3\n    credits: \"500\"\n    market: {maxClusterGpus: 32}\n")
                + MARKET;
        assertThat(text).contains("nodes: 2\n", "minimumHold: 5s", "maxClusters: 3\n    credits", "maxClusters: 10\n    credits");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    static String job(String name, String runsFor) {
        return Manifests.gpuJob(name, 2, "8", runsFor == null ? null : "annotations: {sim.better-compute.dev/runs-for: " + runsFor + "}");
    }

    @Test
    void a_job_applied_with_kubectl_is_provisioned_by_the_market_then_outbid_requeued_and_idle_nodes_leave() throws Exception {
        try (RunningServer s = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(catalog()).withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(1))) {
            JsonNode train = readyCluster(s, RunningServer.ALICE, "acme", "train");
            JsonNode serve = readyCluster(s, RunningServer.CAROL, "globex", "serve");
            Path dir = Files.createTempDirectory("market-job-e2e");
            try (KubernetesClient a = client(s, RunningServer.ALICE, train, dir.resolve("acme.kubeconfig"));
                 KubernetesClient b = client(s, RunningServer.CAROL, serve, dir.resolve("globex.kubeconfig"))) {
                platformObjectsAreIn(a);
                platformObjectsAreIn(b);

                apply(a, dir.resolve("acme.kubeconfig"), job("train", null));
                GenericKubernetesResource workload = await("acme's Workload", () -> only(a.genericKubernetesResources(WORKLOADS)
                        .inNamespace("default").list().getItems()));
                assertThat(workload.getMetadata().getOwnerReferences()).anySatisfy(o -> assertThat(o.getName()).isEqualTo("train"));
                GenericKubernetesResource tooLow = await("BidTooLow", () -> {
                    GenericKubernetesResource r = only(requests(a));
                    return "BidTooLow".equals(reason(r, "Provisioned")) ? r : null;
                });
                String firstAttempt = tooLow.getMetadata().getName();
                assertThat(firstAttempt).isEqualTo(workload.getMetadata().getName() + "-market-1");

                assertThat(MarketApiEndToEndTest.send(s, "PUT", "/api/k8s/bid", RunningServer.ALICE,
                        "{\"cluster\":\"train\",\"limit_price\":\"2.40\"}").status()).isEqualTo(200);
                await("Provisioned=True", () -> "True".equals(conditionStatus(request(a, firstAttempt), "Provisioned")) ? true : null);
                await("two mk- node pools at the provider", () -> marketPools(s, train).size() == 2 ? true : null);
                List<Node> acmeNodes = await("two Ready market nodes", () -> {
                    List<Node> n = a.nodes().withLabel(REQUEST_LABEL).list().getItems();
                    return n.size() == 2 && n.stream().allMatch(MarketJobEndToEndTest::ready) ? n : null;
                });
                List<Pod> running = await("acme's pods Running on them", () -> {
                    List<Pod> p = pods(a, "train");
                    return p.size() == 2 && p.stream().allMatch(x -> "Running".equals(x.getStatus().getPhase())) ? p : null;
                });
                assertThat(running).extracting(p -> p.getSpec().getNodeName())
                        .containsExactlyInAnyOrderElementsOf(acmeNodes.stream().map(n -> n.getMetadata().getName()).toList());
                await("charges in acme's balance", () -> {
                    JsonNode balance = s.get("/api/k8s/balance", RunningServer.ALICE).json();
                    return new BigDecimal(balance.get("charged").asText()).signum() > 0 ? balance : null;
                });

                assertThat(MarketApiEndToEndTest.send(s, "PUT", "/api/k8s/bid", RunningServer.CAROL,
                        "{\"cluster\":\"serve\",\"limit_price\":\"5.00\"}").status()).isEqualTo(200);
                apply(b, dir.resolve("globex.kubeconfig"), job("serve", "15s"));
                await("acme's PreemptionNotice=True", () -> "True".equals(conditionStatus(request(a, firstAttempt), "PreemptionNotice"))
                        ? true : null);
                // The Job controller replaces an evicted pod at once (Pending: the nodes are cordoned), so the pods
                // that ran are followed by name.
                List<String> ran = running.stream().map(p -> p.getMetadata().getName()).toList();
                // A pod may be gone already when a loaded machine looks late (its grace is the notice's 10 s): then
                // its NodePreempting event, which outlives it, shows it was told.
                await("acme's running pods annotated and evicted", () -> ran.stream().allMatch(name -> {
                    Pod p = a.pods().inNamespace("default").withName(name).get();
                    return p == null || p.getMetadata().getAnnotations().containsKey("marketplace.nationalcompute.com/preempt-at")
                            && p.getMetadata().getDeletionTimestamp() != null;
                }) ? true : null);
                List<io.fabric8.kubernetes.api.model.Event> notices = a.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> "NodePreempting".equals(e.getReason())).toList();
                assertThat(notices).extracting(e -> e.getInvolvedObject().getName()).containsAll(ran)
                        .containsAll(acmeNodes.stream().map(n -> n.getMetadata().getName()).toList());
                assertThat(notices).extracting(io.fabric8.kubernetes.api.model.Event::getLastTimestamp)
                        .as("every node and pod of the gang told at the one moment of the notice").containsOnly(notices.get(0).getLastTimestamp());
                await("globex's pods Running", () -> {
                    List<Pod> p = pods(b, "serve");
                    return p.size() == 2 && p.stream().allMatch(x -> "Running".equals(x.getStatus().getPhase())) ? p : null;
                });
                await("globex's Job ends", () -> {
                    Job j = b.batch().v1().jobs().inNamespace("default").withName("serve").get();
                    return j.getStatus() != null && j.getStatus().getConditions().stream()
                            .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus())) ? j : null;
                });
                await("globex's idle nodes leave its cluster and the provider", () ->
                        b.nodes().withLabel(REQUEST_LABEL).list().getItems().isEmpty() && marketPools(s, serve).isEmpty() ? true : null);
                GenericKubernetesResource secondAttempt = await("acme's Job requeued: the next attempt's request",
                        () -> only(requests(a).stream().filter(r -> r.getMetadata().getName().endsWith("-market-2")).toList()));
                assertThat(secondAttempt.getMetadata().getName()).isEqualTo(workload.getMetadata().getName() + "-market-2");
                await("acme's Job runs again on the freed supply", () -> {
                    List<Pod> p = pods(a, "train");
                    return p.size() == 2 && p.stream().allMatch(x -> "Running".equals(x.getStatus().getPhase())) ? p : null;
                });
            }
        }
    }

    static JsonNode readyCluster(RunningServer s, String token, String tenant, String name) {
        RunningServer.Reply created = s.call("create", token, ClustersApiContract.standard(tenant, name));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String id = created.json().get("id").asText();
        return await(name + " is ready", () -> {
            JsonNode c = s.call("get", token, Map.of("tenantId", tenant, "clusterId", id)).json();
            return c.get("state").asText().equals("ready") ? c : null;
        });
    }

    static KubernetesClient client(RunningServer s, String token, JsonNode cluster, Path kubeconfigFile) throws IOException {
        RunningServer.Reply answer = s.call("credentials", token, Map.of("tenantId", cluster.get("tenantId").asText(),
                "clusterId", cluster.get("id").asText(), "role", "admin"));
        assertThat(answer.status()).as("credentials: %s", answer.text()).isEqualTo(200);
        String kubeconfig = answer.json().get("kubeconfig").asText();
        Files.writeString(kubeconfigFile, kubeconfig, StandardCharsets.UTF_8);
        return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
    }

    static void platformObjectsAreIn(KubernetesClient k) {
        await("the platform's LocalQueue default", () -> k.genericKubernetesResources("kueue.x-k8s.io/v1beta1", "LocalQueue")
                .inNamespace("default").withName("default").get());
        await("the ProvisioningRequest CRD", () -> k.apiextensions().v1().customResourceDefinitions()
                .withName("provisioningrequests.autoscaling.x-k8s.io").get());
    }

    /** With the real kubectl when it is on the PATH, else through fabric8. */
    static void apply(KubernetesClient k, Path kubeconfig, String manifest) throws Exception {
        java.util.Optional<String> kubectl = Programs.find("kubectl");
        if (kubectl.isEmpty()) {
            k.load(new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8))).inNamespace("default").createOrReplace();
            return;
        }
        Path file = Files.createTempFile(kubeconfig.getParent(), "job", ".yaml");
        Files.writeString(file, manifest, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(kubectl.get(), "--kubeconfig", kubeconfig.toString(), "apply", "-f", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("created");
    }

    static List<GenericKubernetesResource> requests(KubernetesClient k) {
        return k.genericKubernetesResources(PROVREQS).inNamespace("default").list().getItems();
    }

    static GenericKubernetesResource request(KubernetesClient k, String name) {
        return k.genericKubernetesResources(PROVREQS).inNamespace("default").withName(name).get();
    }

    static List<Pod> pods(KubernetesClient k, String job) {
        return k.pods().inNamespace("default").withLabel("job-name", job).list().getItems();
    }

    static <T extends HasMetadata> T only(List<T> items) {
        return items.size() == 1 ? items.get(0) : null;
    }

    static boolean ready(Node n) {
        return n.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static List<String> marketPools(RunningServer s, JsonNode cluster) {
        return s.server().simulator().orElseThrow().nodeCounts("platform-prod", "us-central1-a",
                cluster.get("providerName").asText()).keySet().stream().filter(n -> n.startsWith("mk-")).toList();
    }

    static String reason(GenericKubernetesResource r, String type) {
        return MarketInTenantClusterEndToEndTest.condition(r, type, "reason");
    }
}
