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
 * A tenant's job through the market on the real server (embedded H2, the in-process GKE simulator whose clusters play Kueue,
 * the Job controller, the scheduler and the kubelets; the market ticking every second with fast durations):
 * no Kueue object is written by hand. Acme applies a 16-GPU Job (with the real {@code kubectl} when it is on
 * the PATH): Kueue's Workload and ProvisioningRequest appear and the request reads {@code BidTooLow}; a limit
 * set over HTTP gets it two {@code mk-} node pools at the provider, two Ready nodes and its pods Running, and
 * charges. Globex, in its own cluster, outbids it on the two-node pool: acme's request gets the notice, its
 * pods the annotation and the eviction (every NodePreempting Event of its nodes and pods at the notice's one moment), its
 * Job is requeued at once as the next attempt, globex's pods run; globex's
 * Job ends, and its nodes leave after the minimum hold and the idle grace. Beside it, a Job larger than acme's max
 * cluster size is held in its queue throughout: listed queued with the quota as its cause, its Workload's message
 * naming the quota, never filed.
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
                // a job larger than acme's max cluster size on its own (48 GPUs over 32): held in its queue, never filed
                apply(a, dir.resolve("acme.kubeconfig"), Manifests.gpuJob("too-big", 6, "8", null));
                GenericKubernetesResource tooLow = await("BidTooLow", () -> {
                    GenericKubernetesResource r = only(requests(a));
                    return "BidTooLow".equals(reason(r, "Provisioned")) ? r : null;
                });
                String firstAttempt = tooLow.getMetadata().getName();
                assertThat(firstAttempt).isEqualTo(workload.getMetadata().getName() + "-market-1");
                theJobOverTheMaxClusterSizeIsListedQueuedWithTheQuotaAsItsCause(s, a, dir.resolve("acme.kubeconfig"));

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
                if (Programs.find("kubectl").isPresent()) {
                    theVerdictsReadWithKubectl(dir.resolve("acme.kubeconfig"), firstAttempt, running.get(0).getMetadata().getName());
                }
                await("charges in acme's balance", () -> {
                    JsonNode balance = s.get("/api/k8s/balance", RunningServer.ALICE).json();
                    return new BigDecimal(balance.get("charged").asText()).signum() > 0 ? balance : null;
                });

                assertThat(MarketApiEndToEndTest.send(s, "PUT", "/api/k8s/bid", RunningServer.CAROL,
                        "{\"cluster\":\"serve\",\"limit_price\":\"5.00\"}").status()).isEqualTo(200);
                apply(b, dir.resolve("globex.kubeconfig"), job("serve", "15s"));
                await("acme's PreemptionNotice=True", () -> "True".equals(conditionStatus(request(a, firstAttempt), "PreemptionNotice"))
                        ? true : null);
                // Kueue's default back-off would file the next attempt a minute after the revocation; the platform's
                // retryStrategy files it at once: within the notice (10 s) and a few ticks of a loaded machine.
                java.time.Instant requeueBy = java.time.Instant.now().plusSeconds(40);
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
                if (Programs.find("kubectl").isPresent()) {
                    // the Events outlive the node, which leaves for globex's cluster: read them by their object's kind
                    LaunchAdmissionKubectlTest.Run nodeEvents = kubectl(dir.resolve("acme.kubeconfig"), "get", "events",
                            "--field-selector", "involvedObject.kind=Node");
                    assertThat(nodeEvents.out()).as(nodeEvents.out()).containsPattern("Warning\\s+NodePreempting\\s+node/"
                            + acmeNodes.get(0).getMetadata().getName());
                }
                await("acme's next attempt filed at once after the revocation", java.time.Duration.between(java.time.Instant.now(), requeueBy),
                        () -> request(a, workload.getMetadata().getName() + "-market-2"));
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
                // the requests API: the job by its kind, each attempt with its own times
                JsonNode all = s.get("/api/k8s/requests?cluster=train", RunningServer.ALICE).json().get("items");
                JsonNode stillHeld = heldJob(all);
                assertThat(stillHeld).as("the held job is listed").isNotNull();
                assertThat(stillHeld.get("phase").asText()).as("it never reached the market").isEqualTo("queued");
                List<JsonNode> items = new java.util.ArrayList<>();
                all.forEach(i -> {
                    if (!i.at("/job/name").asText().equals("too-big")) {
                        items.add(i);
                    }
                });
                assertThat(items).hasSize(2).allSatisfy(i -> {
                    assertThat(i.at("/job/kind").asText()).isEqualTo("Job");
                    assertThat(i.at("/job/namespace").asText()).isEqualTo("default");
                    assertThat(i.at("/job/name").asText()).isEqualTo("train");
                    assertThat(i.get("episodes")).hasSize(1);
                });
                JsonNode second = items.get(0);
                JsonNode first = items.get(1);
                assertThat(first.get("phase").asText()).isEqualTo("revoked");
                assertThat(first.at("/episodes/0/end").asText()).isEqualTo("revoked");
                assertThat(second.get("attempt").asInt()).isEqualTo(2);
                assertThat(second.at("/episodes/0/end").isNull()).isTrue();
                // each attempt its own times: the first ran, then ended at the revocation's instant, which is when the
                // second was filed
                java.time.Instant firstRan = java.time.Instant.parse(first.at("/episodes/0/running_at").asText());
                assertThat(java.time.Instant.parse(first.at("/episodes/0/ended_at").asText())).isAfter(firstRan);
                assertThat(second.at("/episodes/0/queued_at").asText()).isEqualTo(first.at("/episodes/0/ended_at").asText());
            }
        }
    }

    /**
     * A job over the max cluster size as its tenant sees it: the requests API lists it queued with the quota as its
     * cause, naming the max cluster size; with the real {@code kubectl}, its Workload's {@code QuotaReserved=False}
     * names the GPU flavor's quota (the max cluster size), and no ProvisioningRequest is filed for it.
     */
    private static void theJobOverTheMaxClusterSizeIsListedQueuedWithTheQuotaAsItsCause(RunningServer s, KubernetesClient a,
                                                                                       Path kubeconfig) {
        JsonNode held = await("the held job listed", () -> heldJob(s.get("/api/k8s/requests?cluster=train",
                RunningServer.ALICE).json().get("items")));
        assertThat(held.get("phase").asText()).isEqualTo("queued");
        assertThat(held.get("reason").asText()).isEqualTo("InsufficientQuota");
        assertThat(held.get("message").asText()).isEqualTo("48 GPUs is more than the max cluster size of 32 GPUs");
        assertThat(held.get("granted_nodes").asInt()).isZero();
        String workload = only(a.genericKubernetesResources(WORKLOADS).inNamespace("default").list().getItems().stream()
                .filter(w -> w.getMetadata().getOwnerReferences().stream().anyMatch(o -> o.getName().equals("too-big")))
                .toList()).getMetadata().getName();
        assertThat(requests(a)).extracting(r -> r.getMetadata().getName()).noneMatch(n -> n.startsWith(workload));
        if (Programs.find("kubectl").isPresent()) {
            String quota = "insufficient quota for nvidia.com/gpu in flavor gpu-h100-8x, request > maximum capacity (48 > 32)";
            LaunchAdmissionKubectlTest.Run message = kubectl(kubeconfig, "get", "workload", workload, "-o",
                    "jsonpath={.status.conditions[?(@.type==\"QuotaReserved\")].message}");
            assertThat(message.out()).as(message.out()).contains(quota);
            String described = kubectl(kubeconfig, "describe", "workload", workload).out();
            assertThat(described).as(described).contains("QuotaReserved").contains(quota);
        }
    }

    private static JsonNode heldJob(JsonNode items) {
        for (JsonNode i : items) {
            if (i.at("/job/name").asText().equals("too-big")) {
                return i;
            }
        }
        return null;
    }

    /**
     * Where the spec says to read the market's verdicts, with the real {@code kubectl}: the job's Events in
     * {@code kubectl describe job} (a change of reason each, then {@code NodeGranted} per node), the usual columns
     * of {@code kubectl get events}, the request's own Events in {@code kubectl describe provisioningrequest}, and
     * a running pod's log.
     */
    private static void theVerdictsReadWithKubectl(Path kubeconfig, String request, String pod) {
        String jobEvents = await("kubectl describe job lists the market's Events", () -> {
            String out = kubectl(kubeconfig, "describe", "job", "train").out();
            String events = out.substring(out.indexOf("Events:"));
            return events.contains("BidTooLow") && events.split("NodeGranted", -1).length == 3
                    && events.matches("(?s).*Normal\\s+Provisioned\\s.*") ? events : null;
        });
        assertThat(jobEvents).contains("nationalcompute-market").doesNotContain("<none>");
        LaunchAdmissionKubectlTest.Run events = kubectl(kubeconfig, "get", "events");
        assertThat(events.out()).as(events.out()).containsPattern("LAST SEEN\\s+TYPE\\s+REASON\\s+OBJECT\\s+MESSAGE")
                .containsPattern("Normal\\s+NodeGranted\\s+job/train\\s+The market granted node");
        String described = kubectl(kubeconfig, "describe", "provisioningrequest", request).out();
        assertThat(described.substring(described.indexOf("Events:"))).as(described).contains("BidTooLow").contains("Provisioned");
        LaunchAdmissionKubectlTest.Run logs = kubectl(kubeconfig, "logs", pod);
        assertThat(logs.exit()).as(logs.out()).isZero();
        assertThat(logs.out()).contains("simulated container");
    }

    private static LaunchAdmissionKubectlTest.Run kubectl(Path kubeconfig, String... args) {
        try {
            return LaunchAdmissionKubectlTest.kubectl(kubeconfig, args);
        } catch (Exception e) {
            throw new IllegalStateException(e);
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
