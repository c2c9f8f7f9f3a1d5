package com.bettercompute.bootstrap.e2e;

import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static com.bettercompute.bootstrap.e2e.LaunchAdmissionKubectlTest.apply;
import static com.bettercompute.bootstrap.e2e.LaunchAdmissionKubectlTest.kubectl;
import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every workload kind the spec names, as a tenant applies it with the real {@code kubectl} to a market-managed
 * cluster of the embedded default, whose add-ons (Kueue, JobSet, the MPI Operator) the platform installed:
 * before a limit price the JobSet and MPIJob gangs have no pods, each GPU replica of a Deployment and a bare
 * GPU pod is a pod held {@code SchedulingGated}, and CPU work (a Deployment, a StatefulSet, a DaemonSet, a Job)
 * runs at once on the CPU worker; with a limit price every GPU pod runs on the nodes granted to its request;
 * withdrawing the price reclaims each: the gangs are suspended whole and requeued, the replicas come back
 * gated, the bare pod is gone. One server, one cluster.
 */
class WorkloadKindsKubectlTest {
    /** Supply for every gang and replica at once: six 8-GPU nodes, holds and windows of seconds. */
    static final String MARKET = MarketApiEndToEndTest.MARKET
            .replace("{notice: 10s, minimumHold: 2m, protectionWindow: 4m, idleGrace: 30s}",
                    "{notice: 10s, minimumHold: 5s, protectionWindow: 5s, idleGrace: 5s}")
            .replace("nodes: 4\n", "nodes: 6\n");
    static final String REQUEST_LABEL = "nationalcompute.com/request";
    static final String GATE = "kueue.x-k8s.io/admission";

    static Path catalog() throws Exception {
        Path file = RunningServer.catalogFile();
        String text = Files.readString(file, StandardCharsets.UTF_8)
                .replace("  - id: acme\n    maxClusters: 10\n",
                        "  - id: acme\n    maxClusters: 10\n    credits: \"5000\"\n    market: {maxClusterGpus: 64}\n")
                + MARKET;
        assertThat(text).contains("nodes: 6\n", "maxClusterGpus: 64");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void every_kind_waits_without_a_price_runs_with_one_and_is_reclaimed_as_its_kind_is() throws Exception {
        Assumptions.assumeTrue(Programs.find("kubectl").isPresent(), "kubectl is not on the PATH");
        try (RunningServer s = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(catalog()).withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(1))) {
            JsonNode cluster = MarketJobEndToEndTest.readyCluster(s, RunningServer.ALICE, "acme", "work");
            Path dir = Files.createTempDirectory("workload-kinds");
            Path kubeconfig = dir.resolve("acme.kubeconfig");
            try (KubernetesClient k = MarketJobEndToEndTest.client(s, RunningServer.ALICE, cluster, kubeconfig)) {
                await("the platform's add-ons and objects", () -> k.apiextensions().v1().customResourceDefinitions()
                        .withName("jobsets.jobset.x-k8s.io").get() != null
                        && k.apiextensions().v1().customResourceDefinitions().withName("mpijobs.kubeflow.org").get() != null
                        && k.genericKubernetesResources(LaunchAdmissionKubectlTest.WEBHOOKS).withName("better-compute-market").get() != null
                        ? true : null);
                assertThat(k.apps().deployments().inNamespace("kueue-system").withName("kueue-controller-manager").get()
                        .getStatus().getAvailableReplicas()).isEqualTo(1);

                for (String manifest : List.of(jobSet(), mpiJob(), gpuDeployment(), gpuPod(), cpuWork())) {
                    LaunchAdmissionKubectlTest.Run run = apply(dir, kubeconfig, manifest);
                    assertThat(run.exit()).as(run.out()).isZero();
                }

                // before a limit price: CPU work runs at once, gangs have no pods, replicas and the bare pod are gated
                await("CPU work running on the CPU worker", () -> {
                    List<Pod> cpu = k.pods().inNamespace("default").withLabel("tier", "cpu").list().getItems();
                    return cpu.size() == 4 && cpu.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())) ? cpu : null;
                }).forEach(p -> assertThat(k.nodes().withName(p.getSpec().getNodeName()).get().getMetadata().getLabels())
                        .containsKey("node-role.kubernetes.io/cpu"));
                await("a request for each gang, replica and pod", () -> MarketJobEndToEndTest.requests(k).size() == 5 ? true : null);
                assertThat(pods(k, "jobset.sigs.k8s.io/jobset-name", "train")).isEmpty();
                assertThat(pods(k, "training.kubeflow.org/job-name", "allreduce")).isEmpty();
                assertThat(pods(k, "app", "serve")).hasSize(2).allSatisfy(WorkloadKindsKubectlTest::gated);
                assertThat(k.pods().inNamespace("default").withName("solo").get()).satisfies(WorkloadKindsKubectlTest::gated);
                LaunchAdmissionKubectlTest.Run shown = kubectl(kubeconfig, "get", "pods", "-l", "app=serve");
                assertThat(shown.out()).as(shown.out()).contains("SchedulingGated");
                LaunchAdmissionKubectlTest.Run noGang = kubectl(kubeconfig, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=train");
                assertThat(noGang.out()).contains("No resources found");
                assertThat(kubectl(kubeconfig, "get", "jobsets").out()).contains("train");
                assertThat(kubectl(kubeconfig, "get", "mpijobs").out()).contains("allreduce");

                // with a limit price: every GPU pod runs on the nodes granted to its own request
                assertThat(MarketApiEndToEndTest.send(s, "PUT", "/api/k8s/bid", RunningServer.ALICE,
                        "{\"cluster\":\"work\",\"limit_price\":\"2.40\"}").status()).isEqualTo(200);
                // six nodes, each a provider node pool made one operation at a time: longer than one await's patience
                List<Pod> running = said(s, k, () -> MarketInTenantClusterEndToEndTest.await("every GPU pod running",
                        MarketInTenantClusterEndToEndTest.PATIENCE.multipliedBy(2), () -> {
                    List<Pod> gpu = k.pods().inNamespace("default").withLabel("tier", "gpu").list().getItems();
                    return gpu.size() == 6 && gpu.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())) ? gpu : null;
                }));
                assertThat(running).allSatisfy(p -> assertThat(k.nodes().withName(p.getSpec().getNodeName()).get().getMetadata()
                        .getLabels()).containsKey(REQUEST_LABEL));
                assertThat(running).extracting(p -> p.getSpec().getNodeName()).doesNotHaveDuplicates();
                assertThat(pods(k, "training.kubeflow.org/job-role", "launcher")).singleElement().satisfies(p -> {
                    assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                    assertThat(k.nodes().withName(p.getSpec().getNodeName()).get().getMetadata().getLabels())
                            .containsKey("node-role.kubernetes.io/cpu");
                });
                List<String> gangNodes = pods(k, "jobset.sigs.k8s.io/jobset-name", "train").stream()
                        .map(p -> k.nodes().withName(p.getSpec().getNodeName()).get().getMetadata().getLabels().get(REQUEST_LABEL)).distinct().toList();
                assertThat(gangNodes).as("a JobSet's pods share one request's nodes").hasSize(1);
                List<String> replicaRequests = pods(k, "app", "serve").stream()
                        .map(p -> k.nodes().withName(p.getSpec().getNodeName()).get().getMetadata().getLabels().get(REQUEST_LABEL)).distinct().toList();
                assertThat(replicaRequests).as("each replica is its own request").hasSize(2);
                List<String> ranReplicas = pods(k, "app", "serve").stream().map(p -> p.getMetadata().getName()).toList();

                // withdrawn: each kind is reclaimed as its kind is
                assertThat(MarketApiEndToEndTest.send(s, "DELETE", "/api/k8s/bid?cluster=work", RunningServer.ALICE, null).status())
                        .isEqualTo(200);
                await("the JobSet suspended whole, its pods gone, its Workload evicted", () ->
                        suspended(k, "jobset.x-k8s.io/v1alpha2", "JobSet", "train", "spec", "suspend")
                                && pods(k, "jobset.sigs.k8s.io/jobset-name", "train").isEmpty() && evicted(k, "train") ? true : null);
                await("the MPIJob suspended whole, its pods gone, its Workload evicted", () ->
                        suspended(k, "kubeflow.org/v2beta1", "MPIJob", "allreduce", "spec", "runPolicy", "suspend")
                                && pods(k, "training.kubeflow.org/job-name", "allreduce").isEmpty() && evicted(k, "allreduce") ? true : null);
                await("the replicas back, gated, as new pods", () -> {
                    List<Pod> serve = pods(k, "app", "serve");
                    return serve.size() == 2 && serve.stream().allMatch(WorkloadKindsKubectlTest::gated)
                            && serve.stream().noneMatch(p -> ranReplicas.contains(p.getMetadata().getName())) ? true : null;
                });
                await("the bare pod gone", () -> k.pods().inNamespace("default").withName("solo").get() == null ? true : null);
                assertThat(k.pods().inNamespace("default").withLabel("tier", "cpu").list().getItems())
                        .as("CPU work is never reclaimed").hasSize(4).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
            }
        }
    }

    /** The wait's answer; when it fails, what held it: the market's requests, and the pods as they stand. */
    private static <T> T said(RunningServer s, KubernetesClient k, java.util.function.Supplier<T> wait) throws Exception {
        try {
            return wait.get();
        } catch (AssertionError e) {
            String requests = s.get("/api/k8s/requests?cluster=work", RunningServer.ALICE).text();
            String pods = String.join("\n", k.pods().inNamespace("default").list().getItems().stream()
                    .map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase() + " on " + p.getSpec().getNodeName()).toList());
            throw new AssertionError(e.getMessage() + "\nrequests: " + requests + "\npods:\n" + pods, e);
        }
    }

    private static List<Pod> pods(KubernetesClient k, String label, String value) {
        return k.pods().inNamespace("default").withLabel(label, value).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static boolean gated(Pod p) {
        return p.getSpec().getNodeName() == null && p.getSpec().getSchedulingGates() != null
                && p.getSpec().getSchedulingGates().stream().anyMatch(g -> GATE.equals(g.getName()));
    }

    @SuppressWarnings("unchecked")
    private static boolean suspended(KubernetesClient k, String apiVersion, String kind, String name, String... path) {
        Object at = k.genericKubernetesResources(apiVersion, kind).inNamespace("default").withName(name).get().getAdditionalProperties();
        for (String step : path) {
            at = at instanceof Map<?, ?> m ? ((Map<String, Object>) m).get(step) : null;
        }
        return Boolean.TRUE.equals(at);
    }

    /** Whether the job's Workload was evicted by the market's revocation and waits to be requeued. */
    private static boolean evicted(KubernetesClient k, String owner) {
        for (GenericKubernetesResource w : k.genericKubernetesResources(MarketInTenantClusterEndToEndTest.WORKLOADS)
                .inNamespace("default").list().getItems()) {
            if (w.getMetadata().getOwnerReferences().get(0).getName().equals(owner)) {
                return "True".equals(MarketInTenantClusterEndToEndTest.condition(w, "Evicted", "status"));
            }
        }
        return false;
    }

    static String jobSet() {
        return """
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata: {name: train, namespace: default}
                spec:
                  replicatedJobs:
                    - name: workers
                      replicas: 2
                      template:
                        spec:
                          parallelism: 1
                          completions: 1
                          template:
                            metadata: {labels: {tier: gpu}}
                            spec:
                              restartPolicy: Never
                              nodeSelector: {nationalcompute.com/node-class: h100-8x}
                              containers: [{name: train, image: "trainer:1", resources: {limits: {nvidia.com/gpu: "8"}}}]
                """;
    }

    static String mpiJob() {
        return """
                apiVersion: kubeflow.org/v2beta1
                kind: MPIJob
                metadata: {name: allreduce, namespace: default}
                spec:
                  slotsPerWorker: 8
                  mpiReplicaSpecs:
                    Launcher:
                      replicas: 1
                      template:
                        spec: {containers: [{name: launcher, image: "mpi:1"}]}
                    Worker:
                      replicas: 1
                      template:
                        metadata: {labels: {tier: gpu}}
                        spec:
                          nodeSelector: {nationalcompute.com/node-class: h100-8x}
                          containers: [{name: worker, image: "mpi:1", resources: {limits: {nvidia.com/gpu: "8"}}}]
                """;
    }

    static String gpuDeployment() {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: serve, namespace: default}
                spec:
                  replicas: 2
                  selector: {matchLabels: {app: serve}}
                  template:
                    metadata: {labels: {app: serve, tier: gpu}}
                    spec:
                      terminationGracePeriodSeconds: 60
                      nodeSelector: {nationalcompute.com/node-class: h100-8x}
                      containers: [{name: serve, image: "server:1", resources: {limits: {nvidia.com/gpu: "8"}}}]
                """;
    }

    static String gpuPod() {
        return """
                apiVersion: v1
                kind: Pod
                metadata: {name: solo, namespace: default, labels: {tier: gpu}}
                spec:
                  nodeSelector: {nationalcompute.com/node-class: h100-8x}
                  containers: [{name: solo, image: "server:1", resources: {limits: {nvidia.com/gpu: "8"}}}]
                """;
    }

    static String cpuWork() {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web, namespace: default}
                spec:
                  replicas: 1
                  selector: {matchLabels: {app: web}}
                  template:
                    metadata: {labels: {app: web, tier: cpu}}
                    spec: {containers: [{name: web, image: "web:1"}]}
                ---
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: db, namespace: default}
                spec:
                  replicas: 1
                  serviceName: db
                  selector: {matchLabels: {app: db}}
                  template:
                    metadata: {labels: {app: db, tier: cpu}}
                    spec: {containers: [{name: db, image: "postgres:16"}]}
                ---
                apiVersion: apps/v1
                kind: DaemonSet
                metadata: {name: logs, namespace: default}
                spec:
                  selector: {matchLabels: {app: logs}}
                  template:
                    metadata: {labels: {app: logs, tier: cpu}}
                    spec: {containers: [{name: logs, image: "fluent-bit:3"}]}
                ---
                apiVersion: batch/v1
                kind: Job
                metadata: {name: prep, namespace: default}
                spec:
                  template:
                    metadata: {labels: {tier: cpu}}
                    spec:
                      restartPolicy: Never
                      containers: [{name: prep, image: "prep:1"}]
                """;
    }
}
