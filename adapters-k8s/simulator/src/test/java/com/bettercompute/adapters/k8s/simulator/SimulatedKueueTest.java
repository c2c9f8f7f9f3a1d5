package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulated cluster playing Kueue, the Job controller, the scheduler and the kubelets, driven through
 * the real fabric8 client over HTTPS with a mutable clock: what a tenant's Job becomes, what the market's
 * provisioner reads and what its writes cause. API shapes and the simulator's rules, not Kueue itself.
 */
class SimulatedKueueTest {
    private static final String WL_API = "kueue.x-k8s.io/v1beta1";
    private static final String PR_API = "autoscaling.x-k8s.io/v1";
    private static final String[] ACCEPTED = {"Accepted", "True", "Accepted", "read by the market"};

    private static SimulatedCluster.World world;
    private SimulatedCluster cluster;

    @BeforeAll
    static void startWorld() {
        world = new SimulatedCluster.World(new SimulatedKubernetesApis.Settings(Duration.ofSeconds(10), Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stopWorld() {
        world.close();
    }

    @BeforeEach
    void newCluster() {
        cluster = new SimulatedCluster(world);
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    @Test
    void a_gpu_job_is_suspended_and_gets_a_workload_holding_quota_and_one_provisioning_request_with_its_pod_template() {
        cluster.installMarket(16);
        cluster.job("train", 2, 8, "normal", null);

        Job job = cluster.client.batch().v1().jobs().inNamespace("default").withName("train").get();
        assertThat(job.getSpec().getSuspend()).isTrue();
        GenericKubernetesResource workload = cluster.workloadOf("train");
        assertThat(workload.getMetadata().getName()).matches("job-train-[0-9a-f]{5}");
        assertThat(condition(workload, "QuotaReserved")).containsEntry("status", "True");
        assertThat((Map<String, Object>) workload.get("spec")).containsEntry("priority", 500).containsEntry("queueName", "default");
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).isEmpty();

        String request = workload.getMetadata().getName() + "-market-1";
        GenericKubernetesResource pr = cluster.get(PR_API, "ProvisioningRequest", request);
        assertThat(pr.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/managed", "true");
        assertThat(pr.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getKind()).isEqualTo("Workload"));
        Map<String, Object> spec = pr.get("spec");
        assertThat(spec).containsEntry("provisioningClassName", "market.nationalcompute.com");
        assertThat(spec.get("podSets")).isEqualTo(List.of(Map.of("podTemplateRef", Map.of("name", "ppt-" + request + "-main"), "count", 2)));
        PodTemplate template = cluster.client.resources(PodTemplate.class).inNamespace("default").withName("ppt-" + request + "-main").get();
        assertThat(template.getTemplate().getSpec().getContainers().get(0).getResources().getLimits().get("nvidia.com/gpu").getAmount()).isEqualTo("8");
        assertThat(template.getTemplate().getSpec().getNodeSelector()).containsEntry("nationalcompute.com/node-class", "h100");
        assertThat(template.getTemplate().getSpec().getTolerations()).anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nationalcompute.com/gpu-worker"));
    }

    @Test
    void quota_goes_by_priority_then_age_and_a_workload_left_out_names_the_quota() {
        cluster.installMarket(16);
        cluster.job("first", 2, 8, "low", null);
        cluster.job("older-low", 1, 8, "low", null);
        cluster.job("newer-high", 1, 8, "high", null);
        cluster.job("too-big", 3, 8, "high", null);

        assertThat(condition(cluster.workloadOf("first"), "QuotaReserved")).containsEntry("status", "True");
        assertThat(condition(cluster.workloadOf("older-low"), "QuotaReserved")).containsEntry("status", "False")
                .containsEntry("message", "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed");
        assertThat(condition(cluster.workloadOf("too-big"), "QuotaReserved")).containsEntry("status", "False")
                .containsEntry("message", "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor h100, "
                        + "request > maximum capacity (24 > 16)");
        assertThat(cluster.list(PR_API, "ProvisioningRequest")).hasSize(1);

        cluster.client.batch().v1().jobs().inNamespace("default").withName("first").delete();
        cluster.advance(Duration.ofSeconds(1));

        assertThat(cluster.workloadOf("first")).isNull();
        assertThat(condition(cluster.workloadOf("newer-high"), "QuotaReserved")).containsEntry("status", "True");
        assertThat(condition(cluster.workloadOf("older-low"), "QuotaReserved")).containsEntry("status", "True");
        assertThat(cluster.list(PR_API, "ProvisioningRequest")).extracting(r -> r.getMetadata().getName())
                .containsExactlyInAnyOrder(cluster.workloadOf("newer-high").getMetadata().getName() + "-market-1",
                        cluster.workloadOf("older-low").getMetadata().getName() + "-market-1");
    }

    /**
     * The platform's queue lists the CPU flavor first with no GPUs: as Kueue does, a pod selecting a node class
     * the CPU flavor lacks does not match it, and every flavor's reason is reported, sorted, so the message names
     * the GPU flavor's quota (the max cluster size), not the CPU flavor's zero.
     */
    @ParameterizedTest(name = "{0} with 16 GPUs in use: {1}")
    @CsvSource(delimiter = '|', value = {
            "selecting h100 | 8  | flavor cpu doesn't match node affinity, insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed",
            "selecting h100 | 24 | flavor cpu doesn't match node affinity, insufficient quota for nvidia.com/gpu in flavor h100, request > maximum capacity (24 > 16)",
            "selecting none | 8  | insufficient quota for nvidia.com/gpu in flavor cpu, request > maximum capacity (8 > 0), "
                    + "insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed",
    })
    void a_gpu_job_over_the_quota_reads_every_flavors_reason_and_the_cpu_flavor_matches_no_node_class(String selector, int gpus,
                                                                                                    String message) {
        cluster.installMarket(16);
        cluster.client.genericKubernetesResources(WL_API, "ClusterQueue").withName("market").delete();
        cluster.apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: ResourceFlavor
                metadata: {name: cpu}
                spec: {nodeLabels: {node-role.kubernetes.io/cpu: ""}}
                """);
        cluster.apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: ClusterQueue
                metadata: {name: market}
                spec:
                  namespaceSelector: {}
                  resourceGroups:
                  - coveredResources: [nvidia.com/gpu]
                    flavors:
                    - name: cpu
                      resources: [{name: nvidia.com/gpu, nominalQuota: 0}]
                    - name: h100
                      resources: [{name: nvidia.com/gpu, nominalQuota: 16}]
                  admissionChecksStrategy:
                    admissionChecks: [{name: market, onFlavors: [h100]}]
                """);
        cluster.job("first", 2, 8, "high", null);
        String nodeSelector = selector.equals("selecting h100") ? "nodeSelector: {nationalcompute.com/node-class: h100}" : "";
        cluster.apply("""
                apiVersion: batch/v1
                kind: Job
                metadata: {name: waits, namespace: default, labels: {kueue.x-k8s.io/priority-class: low}}
                spec:
                  parallelism: 1
                  completions: 1
                  template:
                    spec:
                      restartPolicy: Never
                      %s
                      containers:
                      - {name: train, image: trainer:1, resources: {limits: {nvidia.com/gpu: %d}}}
                """.formatted(nodeSelector, gpus));

        assertThat(condition(cluster.workloadOf("first"), "QuotaReserved")).containsEntry("status", "True");
        assertThat(condition(cluster.workloadOf("waits"), "QuotaReserved")).containsEntry("status", "False")
                .containsEntry("message", "couldn't assign flavors to pod set main: " + message);
    }

    @Test
    void the_provisioned_message_reaches_the_workload_and_provisioned_true_runs_the_pods_on_the_granted_nodes_until_runs_for_ends() {
        cluster.installMarket(16);
        cluster.job("train", 2, 8, "normal", "10m");
        String workload = cluster.workloadOf("train").getMetadata().getName();
        String request = workload + "-market-1";

        cluster.provisioningStatus(request, Map.of(), ACCEPTED, new String[] {"Provisioned", "False", "BidTooLow", "your limit price is below the clearing price"});
        assertThat(admissionCheck(cluster.workloadOf("train"))).containsEntry("state", "Pending")
                .containsEntry("message", "your limit price is below the clearing price");

        cluster.grant("market-r1", 2, "r1");
        List<Node> granted = cluster.client.nodes().withLabel(SimulatedCluster.REQUEST_LABEL, "r1").list().getItems();
        assertThat(granted).hasSize(2).allSatisfy(n -> {
            assertThat(ready(n)).isEqualTo("False");
            assertThat(n.getSpec().getTaints()).singleElement().satisfies(t -> assertThat(t.getKey()).isEqualTo("nationalcompute.com/gpu-worker"));
            assertThat(n.getStatus().getAllocatable().get("nvidia.com/gpu").getAmount()).isEqualTo("8");
        });
        cluster.advance(Duration.ofSeconds(10));
        assertThat(cluster.client.nodes().withLabel(SimulatedCluster.REQUEST_LABEL, "r1").list().getItems()).allSatisfy(n -> assertThat(ready(n)).isEqualTo("True"));

        cluster.provisioningStatus(request, Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Provisioned", "True", "Provisioned", "2 of 2 granted nodes ready"});

        assertThat(admissionCheck(cluster.workloadOf("train"))).containsEntry("state", "Ready").containsEntry("message", "2 of 2 granted nodes ready");
        assertThat(condition(cluster.workloadOf("train"), "Admitted")).containsEntry("status", "True");
        Job job = cluster.client.batch().v1().jobs().inNamespace("default").withName("train").get();
        assertThat(job.getSpec().getSuspend()).isFalse();
        assertThat(job.getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry(SimulatedCluster.REQUEST_LABEL, "r1");
        List<Pod> pods = cluster.client.pods().inNamespace("default").list().getItems();
        assertThat(pods).hasSize(2).allSatisfy(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(p.getSpec().getNodeName()).isIn(granted.stream().map(n -> n.getMetadata().getName()).toList());
            assertThat(p.getMetadata().getAnnotations()).containsEntry("autoscaling.x-k8s.io/consume-provisioning-request", request);
        });
        assertThat(pods).extracting(p -> p.getSpec().getNodeName()).doesNotHaveDuplicates();

        cluster.advance(Duration.ofMinutes(9));
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
        cluster.advance(Duration.ofMinutes(1));

        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Succeeded"));
        job = cluster.client.batch().v1().jobs().inNamespace("default").withName("train").get();
        assertThat(job.getStatus().getConditions()).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Complete");
            assertThat(c.getStatus()).isEqualTo("True");
        });
        assertThat(condition(cluster.workloadOf("train"), "Finished")).containsEntry("status", "True");
        assertThat(job.getStatus().getSucceeded()).isEqualTo(2);

        // The market takes the idle nodes back: their pods go with them, the Job's count of successes stays.
        cluster.client.nodes().withLabel(SimulatedCluster.REQUEST_LABEL, "r1").delete();
        cluster.advance(Duration.ofSeconds(1));
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).isEmpty();
        assertThat(cluster.client.batch().v1().jobs().inNamespace("default").withName("train").get().getStatus().getSucceeded())
                .isEqualTo(2);
    }

    @Test
    void failed_evicts_the_workload_deletes_the_pods_after_their_grace_and_files_the_next_attempt_after_the_back_off() {
        String workload = granted("train", 1);
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).singleElement()
                .satisfies(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));

        cluster.provisioningStatus(workload + "-market-1", Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Failed", "True", "MarketRevoked", "the market took the nodes back"});

        GenericKubernetesResource evicted = cluster.workloadOf("train");
        assertThat(condition(evicted, "Evicted")).containsEntry("status", "True").containsEntry("reason", "AdmissionCheck");
        assertThat(condition(evicted, "QuotaReserved")).containsEntry("status", "False");
        assertThat(admissionCheck(evicted)).containsEntry("state", "Retry").containsEntry("message", "the market took the nodes back");
        assertThat(cluster.client.batch().v1().jobs().inNamespace("default").withName("train").get().getSpec().getSuspend()).isTrue();
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).singleElement()
                .satisfies(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNotNull());

        cluster.advance(Duration.ofSeconds(4));
        assertThat(cluster.get(PR_API, "ProvisioningRequest", workload + "-market-2")).isNull();
        cluster.advance(Duration.ofSeconds(1));
        assertThat(cluster.get(PR_API, "ProvisioningRequest", workload + "-market-2")).isNotNull();
        assertThat(cluster.get(PR_API, "ProvisioningRequest", workload + "-market-1")).isNull();
        assertThat(condition(cluster.workloadOf("train"), "QuotaReserved")).containsEntry("status", "True");
        assertThat(admissionCheck(cluster.workloadOf("train"))).containsEntry("state", "Pending").containsEntry("retryCount", 1);

        cluster.advance(Duration.ofSeconds(55));
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).isEmpty();
    }

    @Test
    void the_eviction_api_deletes_a_pod_after_its_grace_and_pods_on_a_node_that_leaves_are_deleted() {
        granted("train", 2);
        List<Pod> pods = cluster.client.pods().inNamespace("default").list().getItems();
        assertThat(pods).hasSize(2);
        Pod first = pods.get(0);

        assertThat(cluster.client.pods().inNamespace("default").withName(first.getMetadata().getName())
                .evict(new io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder()
                        .withNewMetadata().withName(first.getMetadata().getName()).withNamespace("default").endMetadata()
                        .withDeleteOptions(new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder().withGracePeriodSeconds(45L).build()).build())).isTrue();
        Pod evicted = cluster.client.pods().inNamespace("default").withName(first.getMetadata().getName()).get();
        assertThat(evicted.getMetadata().getDeletionTimestamp()).isEqualTo(cluster.clock.instant().plusSeconds(45).toString());
        assertThat(evicted.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(45L);
        cluster.advance(Duration.ofSeconds(44));
        assertThat(cluster.client.pods().inNamespace("default").withName(first.getMetadata().getName()).get()).isNotNull();
        cluster.advance(Duration.ofSeconds(1));
        assertThat(cluster.client.pods().inNamespace("default").withName(first.getMetadata().getName()).get()).isNull();

        cluster.pools.remove("market-r1");
        cluster.advance(Duration.ofSeconds(1));
        assertThat(cluster.client.nodes().withLabel(SimulatedCluster.REQUEST_LABEL, "r1").list().getItems()).isEmpty();
        assertThat(cluster.client.pods().inNamespace("default").list().getItems())
                .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isNull());
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "podReplacementPolicy {0}: {1} replacement while the evicted pod terminates")
    @org.junit.jupiter.params.provider.CsvSource(nullValues = "null", value = {"Failed, 0", "TerminatingOrFailed, 1", "null, 1"})
    void the_job_controller_honours_pod_replacement_policy_and_the_scheduler_never_overfills_a_node(String policy,
                                                                                                     int replacements) {
        granted("train", 2, policy);
        Pod first = cluster.client.pods().inNamespace("default").list().getItems().get(0);
        cluster.client.pods().inNamespace("default").withName(first.getMetadata().getName())
                .evict(new io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder()
                        .withNewMetadata().withName(first.getMetadata().getName()).withNamespace("default").endMetadata()
                        .withDeleteOptions(new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder().withGracePeriodSeconds(30L).build()).build());

        cluster.advance(Duration.ofSeconds(1));
        List<Pod> pods = cluster.client.pods().inNamespace("default").list().getItems();
        assertThat(pods.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)).hasSize(1 + replacements);
        assertThat(pods).filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null && p.getSpec().getNodeName() == null)
                .as("a replacement waits: the terminating pod still holds its node's GPUs").hasSize(replacements);
        eachNodeHoldsAtMostItsGpus();

        cluster.advance(Duration.ofSeconds(30));
        cluster.advance(Duration.ofSeconds(1));
        pods = cluster.client.pods().inNamespace("default").list().getItems();
        assertThat(pods).hasSize(2).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
        eachNodeHoldsAtMostItsGpus();
    }

    @Test
    void sub_node_jobs_seated_on_a_block_node_share_it_and_never_take_more_gpus_than_it_has() {
        cluster.installMarket(32);
        cluster.blockNode("mk-block1");
        cluster.grant("mk-other", 1, "r-other");
        for (String job : List.of("a", "b", "c")) {
            cluster.job(job, 1, 4, "normal", null);
        }
        cluster.advance(Duration.ofSeconds(10));
        for (String job : List.of("a", "b", "c")) {
            cluster.provisioningStatus(cluster.workloadOf(job).getMetadata().getName() + "-market-1",
                    Map.of("nationalcompute.com/block-node", "mk-block1"),
                    new String[] {"Accepted", "True", "Accepted", "The market read this request."},
                    new String[] {"Provisioned", "True", "Provisioned", "Provisioned: seated on base load block node b1"});
        }
        cluster.advance(Duration.ofSeconds(1));
        cluster.advance(Duration.ofSeconds(1));

        List<Pod> pods = cluster.client.pods().inNamespace("default").list().getItems();
        assertThat(pods).hasSize(3).allSatisfy(p -> assertThat(p.getSpec().getNodeSelector())
                .containsEntry("cloud.google.com/gke-nodepool", "mk-block1")
                .doesNotContainKey("nationalcompute.com/request"));
        assertThat(pods).filteredOn(p -> "Running".equals(p.getStatus().getPhase()))
                .as("two 4-GPU pods share the 8-GPU block node").hasSize(2)
                .allSatisfy(p -> assertThat(cluster.client.nodes().withName(p.getSpec().getNodeName()).get().getMetadata()
                        .getLabels()).containsEntry("nationalcompute.com/base-load-block", "true"));
        assertThat(pods).filteredOn(p -> p.getSpec().getNodeName() == null)
                .as("the third waits: the block node has no GPUs left, and it never runs on a market node").hasSize(1);
    }

    private void eachNodeHoldsAtMostItsGpus() {
        java.util.Map<String, Long> gpus = new java.util.HashMap<>();
        for (Pod p : cluster.client.pods().inNamespace("default").list().getItems()) {
            if (p.getSpec().getNodeName() != null) {
                gpus.merge(p.getSpec().getNodeName(), 8L, Long::sum);
            }
        }
        assertThat(gpus.values()).allSatisfy(g -> assertThat(g).isLessThanOrEqualTo(8L));
    }

    @Test
    void a_deleted_job_takes_its_workload_requests_pod_templates_and_pods_with_it() {
        cluster.installMarket(16);
        cluster.job("train", 1, 8, "normal", null);
        String request = cluster.workloadOf("train").getMetadata().getName() + "-market-1";

        cluster.client.batch().v1().jobs().inNamespace("default").withName("train").delete();

        assertThat(cluster.list(WL_API, "Workload")).isEmpty();
        assertThat(cluster.get(PR_API, "ProvisioningRequest", request)).isNull();
        assertThat(cluster.client.resources(PodTemplate.class).inNamespace("default").list().getItems()).isEmpty();
    }

    @Test
    void a_cpu_job_passes_the_queue_without_a_request_and_runs_on_the_cpu_worker() {
        cluster.installMarket(16);
        cluster.job("prep", 1, 0, "normal", "1m");

        assertThat(cluster.list(PR_API, "ProvisioningRequest")).isEmpty();
        assertThat(condition(cluster.workloadOf("prep"), "Admitted")).containsEntry("status", "True");
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).singleElement().satisfies(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(cluster.client.nodes().withName(p.getSpec().getNodeName()).get().getMetadata().getLabels())
                    .containsEntry(SimulatedKubernetesApis.NODE_POOL_LABEL, SimulatedCluster.CPU_WORKER);
        });
    }

    @Test
    void discovery_serves_every_crd_created_through_the_api_and_no_add_on_nobody_installed() {
        assertThat(cluster.client.getApiGroups().getGroups()).extracting(g -> g.getName()).contains("batch", "apps")
                .doesNotContain("autoscaling.x-k8s.io", "kueue.x-k8s.io", "jobset.x-k8s.io", "kubeflow.org");
        cluster.installMarket(16);
        assertThat(cluster.client.getApiGroups().getGroups()).extracting(g -> g.getName()).contains("autoscaling.x-k8s.io");
        assertThat(cluster.client.getApiResources("autoscaling.x-k8s.io/v1").getResources()).extracting(r -> r.getName())
                .containsExactly("provisioningrequests", "provisioningrequests/status");
        assertThat(cluster.client.getApiResources("kueue.x-k8s.io/v1beta1").getResources()).extracting(r -> r.getName())
                .contains("workloads", "clusterqueues", "localqueues", "resourceflavors", "admissionchecks",
                        "provisioningrequestconfigs", "workloadpriorityclasses");
    }

    /** A Job of that many 8-GPU pods, granted as many nodes (request r1), Ready, and Provisioned=True: its workload's name. */
    private String granted(String job, int pods) {
        return granted(job, pods, null);
    }

    private String granted(String job, int pods, String podReplacementPolicy) {
        cluster.installMarket(16);
        cluster.job(job, pods, 8, "normal", null, podReplacementPolicy);
        String workload = cluster.workloadOf(job).getMetadata().getName();
        cluster.grant("market-r1", pods, "r1");
        cluster.advance(Duration.ofSeconds(10));
        cluster.provisioningStatus(workload + "-market-1", Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Provisioned", "True", "Provisioned", pods + " of " + pods + " granted nodes ready"});
        return workload;
    }

    @Test
    void a_restarted_simulator_carries_on_from_the_saved_objects(@org.junit.jupiter.api.io.TempDir java.nio.file.Path state) {
        SimulatedKubernetesApis.Settings settings = new SimulatedKubernetesApis.Settings(Duration.ofSeconds(10), Duration.ofSeconds(5));
        String workload;
        SimulatedCluster before;
        Map<String, Map<String, SimulatedKubernetesApis.NodePool>> clusters = new java.util.concurrent.ConcurrentHashMap<>();
        try (SimulatedCluster.World first = new SimulatedCluster.World(settings, state, world.clock, clusters)) {
            before = new SimulatedCluster(first);
            before.installMarket(16);
            before.job("train", 1, 8, "normal", null);
            workload = before.workloadOf("train").getMetadata().getName();
            before.grant("market-r1", 1, "r1");
            before.close();
        }
        try (SimulatedCluster.World second = new SimulatedCluster.World(settings, state, world.clock, clusters);
             SimulatedCluster after = new SimulatedCluster(second, before)) {
            after.advance(Duration.ofSeconds(10));
            after.provisioningStatus(workload + "-market-1", Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                    new String[] {"Provisioned", "True", "Provisioned", "1 of 1 granted nodes ready"});

            assertThat(condition(after.workloadOf("train"), "Admitted")).containsEntry("status", "True");
            assertThat(after.client.pods().inNamespace("default").list().getItems()).singleElement()
                    .satisfies(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
        }
    }

    private static String ready(Node node) {
        return node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).findFirst().orElseThrow().getStatus();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> admissionCheck(GenericKubernetesResource workload) {
        return ((List<Map<String, Object>>) ((Map<String, Object>) workload.get("status")).get("admissionChecks")).get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(GenericKubernetesResource object, String type) {
        List<Map<String, Object>> conditions = (List<Map<String, Object>>) ((Map<String, Object>) object.get("status")).get("conditions");
        return conditions.stream().filter(c -> type.equals(c.get("type"))).findFirst().orElseThrow();
    }
}
