package com.bettercompute.adapters.k8s;

import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient.ComponentStatus;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The installation of the market's add-ons as a contract, on the simulated cluster, which runs an add-on only
 * once its kinds are served and its controller Deployment has a running replica — as a GKE cluster does: what
 * the platform applies and in what order, when it calls them ready, what a controller that cannot run or an
 * edit by someone else does, how a new pinned version rolls out, and that a bundle whose manifest is not the
 * pinned one is refused.
 */
class ClusterComponentsOnSimulatorTest {
    private static final String PROJECT = "prj";
    private static final String LOCATION = "us-central1-a";
    private static final SimulatedKubernetesApis.NodePool CPU_WORKER = new SimulatedKubernetesApis.NodePool(1,
            Map.of(), List.of(), 0, "e2-standard-4");
    /** A Job asking one 8-GPU node, naming no queue. */
    static final String GPU_JOB = """
            apiVersion: batch/v1
            kind: Job
            metadata: {name: train, namespace: default}
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: train, image: "trainer:1", resources: {limits: {nvidia.com/gpu: 8}}}]
            """;
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final MutableClock CLOCK = new MutableClock();
    private static final Map<String, Map<String, SimulatedKubernetesApis.NodePool>> CLUSTERS = new ConcurrentHashMap<>();
    private static SimulatedKubernetesApis apis;
    private static Fabric8MarketClusterClient market;

    private final Map<String, SimulatedKubernetesApis.NodePool> pools = new ConcurrentHashMap<>();
    private ClusterConnection connection;
    private KubernetesClient k;

    @BeforeAll
    static void start() {
        apis = SimulatedKubernetesApis.start(CLOCK, (p, l, c) -> CLUSTERS.containsKey(c) ? Map.copyOf(CLUSTERS.get(c)) : null);
        market = new Fabric8MarketClusterClient(30_000, 30_000);
    }

    @AfterAll
    static void stop() {
        market.close();
        apis.close();
    }

    @BeforeEach
    void cluster() {
        String name = "components-" + NEXT.incrementAndGet();
        CLUSTERS.put(name, pools);
        pools.put("bc-cpu-worker", CPU_WORKER);
        String endpoint = "https://" + apis.endpointFor(PROJECT, LOCATION, name);
        connection = new ClusterConnection(endpoint, apis.caCertificateBase64(), apis.adminToken());
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(endpoint).withCaCertData(apis.caCertificateBase64())
                .withOauthToken(apis.adminToken()).withRequestRetryBackoffLimit(0).build();
        k = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterEach
    void close() {
        k.close();
    }

    @Test
    void every_component_is_applied_in_order_labelled_with_its_pinned_version_and_ready_once_its_controller_runs() {
        List<ComponentStatus> statuses = market.ensureComponents(connection);

        assertThat(statuses).extracting(ComponentStatus::name).containsExactly("JobSet", "MPI Operator", "Kueue");
        assertThat(statuses).allSatisfy(s -> assertThat(s.ready()).as(s.detail()).isTrue());
        assertThat(statuses).extracting(ComponentStatus::version).containsExactly("v0.8.2", "v0.6.0", "v0.13.4");
        // the order, read from the API server's resource versions: the ProvisioningRequest API first, each add-on's
        // kinds before its controller, JobSet's and MPIJob's kinds before Kueue, Kueue's webhooks after its controller
        assertThat(List.of(version(crd("provisioningrequests.autoscaling.x-k8s.io")), version(crd("jobsets.jobset.x-k8s.io")),
                version(deployment("jobset-system", "jobset-controller-manager")), version(crd("mpijobs.kubeflow.org")),
                version(crd("workloads.kueue.x-k8s.io")), version(deployment("kueue-system", "kueue-controller-manager")),
                version(k.admissionRegistration().v1().mutatingWebhookConfigurations().withName("kueue-mutating-webhook-configuration").get())))
                .isSorted();
        assertThat(deployment("kueue-system", "kueue-controller-manager").getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/version", "v0.13.4").containsEntry("nationalcompute.com/owned-by", "platform");
        assertThat(deployment("kueue-system", "kueue-controller-manager").getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
                .contains("--feature-gates=LocalQueueDefaulting=true");
        assertThat(k.configMaps().inNamespace("kueue-system").withName("kueue-manager-config").get().getData()
                .get("controller_manager_config.yaml"))
                .contains("manageJobsWithoutQueueName: false", "- batch/job", "- jobset.x-k8s.io/jobset", "- kubeflow.org/mpijob",
                        "- pod", "- deployment")
                .as("a StatefulSet's replicas are pods of their own, not one pod group").doesNotContain("- statefulset");

        int before = version(deployment("kueue-system", "kueue-controller-manager"));
        market.ensureComponents(connection);
        assertThat(version(deployment("kueue-system", "kueue-controller-manager"))).as("a second pass changes nothing").isEqualTo(before);
    }

    @Test
    void kueue_as_installed_gates_a_gpu_pod_and_each_gpu_replica_of_a_deployment_or_statefulset_and_queues_a_job_that_names_no_queue() {
        market.ensureComponents(connection);
        market.ensurePlatformObjects(connection, new PlatformObjects(64, List.of(new NodeClass("h100-8x",
                Map.of("nationalcompute.com/node-class", "h100-8x", "nationalcompute.com/market-node", "true")))));

        k.resource("""
                apiVersion: v1
                kind: Pod
                metadata: {name: solo, namespace: default}
                spec:
                  containers: [{name: serve, image: "server:1", resources: {limits: {nvidia.com/gpu: 8}}}]
                """).create();
        k.resource("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: serve, namespace: default}
                spec:
                  replicas: 1
                  selector: {matchLabels: {app: serve}}
                  template:
                    metadata: {labels: {app: serve}}
                    spec: {containers: [{name: serve, image: "server:1", resources: {limits: {nvidia.com/gpu: 8}}}]}
                """).create();
        // queued on its template, as the platform's admission writes it; Parallel, so both replicas are made at once
        k.resource("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: infer, namespace: default}
                spec:
                  replicas: 2
                  podManagementPolicy: Parallel
                  serviceName: infer
                  selector: {matchLabels: {app: infer}}
                  template:
                    metadata: {labels: {app: infer, kueue.x-k8s.io/queue-name: default}}
                    spec: {containers: [{name: infer, image: "server:1", resources: {limits: {nvidia.com/gpu: 8}}}]}
                """).create();
        k.resource(GPU_JOB).create();

        assertThat(k.pods().inNamespace("default").list().getItems()).hasSize(4).allSatisfy(p ->
                assertThat(p.getSpec().getSchedulingGates()).extracting(g -> g.getName()).containsExactly("kueue.x-k8s.io/admission"));
        assertThat(k.batch().v1().jobs().inNamespace("default").withName("train").get().getSpec().getSuspend()).isTrue();
        assertThat(k.genericKubernetesResources("autoscaling.x-k8s.io/v1", "ProvisioningRequest").inNamespace("default").list().getItems())
                .as("one request for the pod, each replica and the job").hasSize(5);
        assertThat(k.genericKubernetesResources("kueue.x-k8s.io/v1beta1", "Workload").inNamespace("default").list().getItems())
                .extracting(w -> w.getMetadata().getName()).filteredOn(n -> n.startsWith("pod-infer-")).hasSize(2);
    }

    @Test
    void a_controller_that_cannot_run_is_not_ready_and_says_what_it_waits_for_until_it_can() {
        pools.remove("bc-cpu-worker");

        List<ComponentStatus> waiting = market.ensureComponents(connection);

        assertThat(waiting).noneMatch(ComponentStatus::ready);
        assertThat(waiting.get(2).detail()).isEqualTo("its controller Deployment kueue-system/kueue-controller-manager has 0 of 1 replicas available");
        assertThat(k.pods().inNamespace("kueue-system").list().getItems()).singleElement()
                .satisfies(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Pending"));

        pools.put("bc-cpu-worker", CPU_WORKER);
        apis.step();
        assertThat(market.ensureComponents(connection)).allMatch(ComponentStatus::ready);
    }

    @Test
    void a_deleted_controller_and_an_edited_configuration_are_put_back_by_the_next_pass() {
        market.ensureComponents(connection);
        k.apps().deployments().inNamespace("mpi-operator").withName("mpi-operator").delete();
        var config = k.configMaps().inNamespace("kueue-system").withName("kueue-manager-config").get();
        config.getData().put("controller_manager_config.yaml", "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n");
        k.configMaps().inNamespace("kueue-system").resource(config).update();
        apis.step();
        assertThat(k.apps().deployments().inNamespace("mpi-operator").withName("mpi-operator").get()).isNull();

        List<ComponentStatus> repaired = market.ensureComponents(connection);

        assertThat(repaired).allMatch(ComponentStatus::ready);
        assertThat(deployment("mpi-operator", "mpi-operator")).isNotNull();
        assertThat(k.configMaps().inNamespace("kueue-system").withName("kueue-manager-config").get().getData()
                .get("controller_manager_config.yaml")).contains("- deployment");
    }

    @Test
    void a_new_pinned_version_rolls_out_at_the_next_pass() {
        market.ensureComponents(connection);
        ClusterComponents.Bundle next = ClusterComponents.bundled().with("Kueue", c -> new ClusterComponents.Component(c.name(), "v0.13.5",
                c.objects().stream().map(o -> upgraded(o, "v0.13.4", "v0.13.5")).toList(), c.controllerNamespace(), c.controller()));

        try (Fabric8MarketClusterClient upgraded = new Fabric8MarketClusterClient(30_000, 30_000, next)) {
            List<ComponentStatus> statuses = upgraded.ensureComponents(connection);
            assertThat(statuses.get(2)).isEqualTo(new ComponentStatus("Kueue", "v0.13.5", true, ""));
        }

        Deployment kueue = deployment("kueue-system", "kueue-controller-manager");
        assertThat(kueue.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("registry.k8s.io/kueue/kueue:v0.13.5");
        assertThat(kueue.getMetadata().getLabels()).containsEntry("app.kubernetes.io/version", "v0.13.5");
        assertThat(k.pods().inNamespace("kueue-system").list().getItems()).filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null)
                .singleElement().satisfies(p -> assertThat(p.getSpec().getContainers().get(0).getImage()).endsWith(":v0.13.5"));
    }

    @Test
    void a_bundle_whose_manifest_is_not_the_pinned_one_is_refused_before_anything_is_applied() {
        assertThat(ClusterComponents.bundled().components()).hasSize(3);

        assertThatThrownBy(() -> ClusterComponents.bundled(path -> path.endsWith("kueue.yaml")
                ? ClusterComponents.read(path).replace("v0.13.4", "v0.13.9") : ClusterComponents.read(path)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Kueue v0.13.4").hasMessageContaining("not the manifest that was pinned");
    }

    private static GenericKubernetesResource upgraded(GenericKubernetesResource o, String from, String to) {
        var json = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
        return json.unmarshal(json.asJson(o).replace(from, to), GenericKubernetesResource.class);
    }

    private Deployment deployment(String namespace, String name) {
        return k.apps().deployments().inNamespace(namespace).withName(name).get();
    }

    private HasMetadata crd(String name) {
        return k.apiextensions().v1().customResourceDefinitions().withName(name).get();
    }

    private static int version(HasMetadata o) {
        return Integer.parseInt(o.getMetadata().getResourceVersion());
    }
}
