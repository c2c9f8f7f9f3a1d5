package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The workload controllers of a simulated cluster — Deployment and ReplicaSet, StatefulSet, DaemonSet, and
 * where installed JobSet and the MPI Operator — and Kueue's integrations of them, driven through fabric8 over
 * HTTPS on a mutable clock. What is installed is written here from the add-ons' documented shapes, so these
 * tests say what the simulator answers to: nothing runs that nobody installed.
 */
class SimulatedWorkloadsTest {
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
    void a_deployment_keeps_one_replica_set_whose_pods_run_on_the_cpu_worker_and_a_scale_down_deletes_the_surplus() {
        cluster.apply(deployment("web", 3, 0));

        var sets = cluster.client.apps().replicaSets().inNamespace("default").list().getItems();
        assertThat(sets).singleElement().satisfies(rs -> {
            assertThat(rs.getMetadata().getName()).startsWith("web-");
            assertThat(rs.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getKind()).isEqualTo("Deployment"));
            assertThat(rs.getStatus().getReadyReplicas()).isEqualTo(3);
        });
        List<Pod> pods = pods("app", "web");
        assertThat(pods).hasSize(3).allSatisfy(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(p.getMetadata().getName()).startsWith(sets.get(0).getMetadata().getName() + "-");
            assertThat(node(p)).containsEntry(SimulatedKubernetesApis.NODE_POOL_LABEL, SimulatedCluster.CPU_WORKER);
        });
        var web = cluster.client.apps().deployments().inNamespace("default").withName("web").get();
        assertThat(web.getStatus().getAvailableReplicas()).isEqualTo(3);
        assertThat(web.getStatus().getConditions()).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Available");
            assertThat(c.getStatus()).isEqualTo("True");
        });

        cluster.client.apps().deployments().inNamespace("default").withName("web").scale(1);
        assertThat(pods("app", "web")).filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null).hasSize(1);
        cluster.advance(Duration.ofSeconds(30));
        assertThat(pods("app", "web")).hasSize(1);

        cluster.client.apps().deployments().inNamespace("default").withName("web").delete();
        cluster.advance(Duration.ofSeconds(1));
        assertThat(cluster.client.apps().replicaSets().inNamespace("default").list().getItems()).isEmpty();
        cluster.advance(Duration.ofSeconds(30));
        assertThat(pods("app", "web")).isEmpty();
    }

    @Test
    void a_statefulset_makes_its_ordinals_in_order_and_a_daemonset_one_pod_per_node_it_tolerates() {
        cluster.grant("gpu", 1, "r1");
        cluster.advance(Duration.ofSeconds(10));
        cluster.apply("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: db, namespace: default}
                spec:
                  replicas: 2
                  serviceName: db
                  selector: {matchLabels: {app: db}}
                  template:
                    metadata: {labels: {app: db}}
                    spec: {containers: [{name: db, image: "postgres:16"}]}
                """);
        cluster.apply("""
                apiVersion: apps/v1
                kind: DaemonSet
                metadata: {name: logs, namespace: default}
                spec:
                  selector: {matchLabels: {app: logs}}
                  template:
                    metadata: {labels: {app: logs}}
                    spec: {containers: [{name: logs, image: "fluent-bit:3"}]}
                """);

        assertThat(pods("app", "db")).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("db-0", "db-1");
        assertThat(pods("app", "db")).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
        // the GPU node's worker taint is not tolerated: one pod, on the CPU worker
        assertThat(pods("app", "logs")).singleElement().satisfies(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(node(p)).containsEntry(SimulatedKubernetesApis.NODE_POOL_LABEL, SimulatedCluster.CPU_WORKER);
        });
        assertThat(cluster.client.apps().daemonSets().inNamespace("default").withName("logs").get().getStatus().getNumberReady())
                .isEqualTo(1);

        cluster.client.pods().inNamespace("default").withName("db-0").withGracePeriod(0).delete();
        cluster.advance(Duration.ofSeconds(1));
        assertThat(pods("app", "db")).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("db-0", "db-1");
    }

    @Test
    void a_job_set_or_mpi_job_is_stored_only_where_its_add_on_is_installed_and_kueues_webhook_refuses_while_kueue_does_not_run() {
        // discovery does not serve the kind: the client cannot find where to send it
        assertThatThrownBy(() -> cluster.apply(jobSet("train", null))).isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("JobSet");
        assertThat(cluster.client.getApiGroups().getGroups()).extracting(g -> g.getName()).doesNotContain("jobset.x-k8s.io", "kubeflow.org");

        cluster.installKueueWebhook();
        assertThatThrownBy(() -> cluster.apply(gpuPod("lonely"))).isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("no endpoints available for service \"kueue-webhook-service\"");

        cluster.installKueue("batch/job", "pod");
        cluster.installMarketObjects(64);
        cluster.apply(gpuPod("served"));
        assertThat(cluster.client.pods().inNamespace("default").withName("served").get().getSpec().getSchedulingGates())
                .extracting(g -> g.getName()).containsExactly("kueue.x-k8s.io/admission");
    }

    @Test
    void each_gpu_replica_of_a_deployment_is_its_own_workload_gated_until_its_request_is_provisioned() {
        cluster.installKueue("batch/job", "pod", "deployment");
        cluster.installKueueWebhook();
        cluster.installMarketObjects(64);
        cluster.apply(deployment("serve", 2, 8));

        List<Pod> gated = pods("app", "serve");
        assertThat(gated).hasSize(2).allSatisfy(p -> {
            assertThat(p.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/queue-name", "default")
                    .containsEntry("kueue.x-k8s.io/managed", "true");
            assertThat(p.getSpec().getSchedulingGates()).extracting(g -> g.getName()).containsExactly("kueue.x-k8s.io/admission");
            assertThat(p.getSpec().getNodeName()).isNull();
            assertThat(p.getStatus().getConditions()).anySatisfy(c -> assertThat(c.getReason()).isEqualTo("SchedulingGated"));
        });
        List<GenericKubernetesResource> requests = cluster.list(PR_API, "ProvisioningRequest");
        assertThat(requests).hasSize(2);
        String first = gated.get(0).getMetadata().getName();
        GenericKubernetesResource workload = cluster.workloadOf(first);
        assertThat(workload.getMetadata().getName()).startsWith("pod-" + first + "-");

        cluster.grant("market-r1", 1, "r1");
        cluster.advance(Duration.ofSeconds(10));
        cluster.provisioningStatus(workload.getMetadata().getName() + "-market-1", Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Provisioned", "True", "Provisioned", "1 of 1 granted nodes ready"});

        Pod admitted = cluster.client.pods().inNamespace("default").withName(first).get();
        assertThat(admitted.getSpec().getSchedulingGates()).isEmpty();
        assertThat(admitted.getStatus().getPhase()).isEqualTo("Running");
        assertThat(node(admitted)).containsEntry(SimulatedCluster.REQUEST_LABEL, "r1");
        Pod other = cluster.client.pods().inNamespace("default").withName(gated.get(1).getMetadata().getName()).get();
        assertThat(other.getSpec().getSchedulingGates()).isNotEmpty();

        // a scale-down deletes the gated replica first, and its workload and request go with it
        cluster.client.apps().deployments().inNamespace("default").withName("serve").scale(1);
        assertThat(pods("app", "serve")).extracting(p -> p.getMetadata().getName()).containsExactly(first);
        assertThat(cluster.list(PR_API, "ProvisioningRequest")).hasSize(1);
    }

    @Test
    void a_sub_node_replica_takes_the_path_of_a_sub_node_job_gated_until_seated_then_on_the_block_node_beside_another() {
        cluster.installKueue("batch/job", "pod", "deployment");
        cluster.installKueueWebhook();
        cluster.installMarketObjects(64);
        cluster.blockNode("mk-block1");
        cluster.grant("mk-other", 1, "r-other");
        cluster.advance(Duration.ofSeconds(10));
        cluster.apply(deployment("serve", 3, 4));
        List<Pod> gated = pods("app", "serve");
        assertThat(gated).hasSize(3).allSatisfy(p -> assertThat(p.getSpec().getSchedulingGates()).isNotEmpty());

        for (Pod p : gated) {
            cluster.provisioningStatus(cluster.workloadOf(p.getMetadata().getName()).getMetadata().getName() + "-market-1",
                    Map.of("nationalcompute.com/block-node", "mk-block1"), ACCEPTED,
                    new String[] {"Provisioned", "True", "Provisioned", "Provisioned: seated on base load block node b1"});
        }
        cluster.advance(Duration.ofSeconds(1));
        cluster.advance(Duration.ofSeconds(1));

        List<Pod> seated = pods("app", "serve");
        assertThat(seated).hasSize(3).allSatisfy(p -> {
            assertThat(p.getSpec().getSchedulingGates()).isEmpty();
            assertThat(p.getSpec().getNodeSelector()).containsEntry("cloud.google.com/gke-nodepool", "mk-block1")
                    .doesNotContainKey(SimulatedCluster.REQUEST_LABEL);
        });
        assertThat(seated).filteredOn(p -> "Running".equals(p.getStatus().getPhase()))
                .as("two 4-GPU replicas share the 8-GPU block node").hasSize(2)
                .allSatisfy(p -> assertThat(node(p)).containsEntry("nationalcompute.com/base-load-block", "true"));
        assertThat(seated).filteredOn(p -> p.getSpec().getNodeName() == null)
                .as("the third waits: the block node is full, and it never lands on a market node").hasSize(1);
    }

    @Test
    void a_job_set_is_one_request_for_its_gang_with_no_pods_until_provisioned_and_a_revoked_request_suspends_it_whole() {
        cluster.installJobSet();
        cluster.installKueue("batch/job", "jobset.x-k8s.io/jobset");
        cluster.installKueueWebhook();
        cluster.installMarketObjects(64);
        cluster.apply(jobSet("train", null));

        GenericKubernetesResource set = cluster.get("jobset.x-k8s.io/v1alpha2", "JobSet", "train");
        assertThat(((Map<?, ?>) set.get("spec")).get("suspend")).isEqualTo(true);
        assertThat(cluster.client.batch().v1().jobs().inNamespace("default").list().getItems()).hasSize(2)
                .allSatisfy(j -> assertThat(j.getSpec().getSuspend()).isTrue());
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).isEmpty();
        GenericKubernetesResource workload = cluster.workloadOf("train");
        assertThat(workload.getMetadata().getName()).startsWith("jobset-train-");
        assertThat(cluster.list("kueue.x-k8s.io/v1beta1", "Workload")).hasSize(1);
        String request = workload.getMetadata().getName() + "-market-1";
        Map<String, Object> spec = cluster.get(PR_API, "ProvisioningRequest", request).get("spec");
        assertThat(spec.get("podSets")).isEqualTo(List.of(
                Map.of("podTemplateRef", Map.of("name", "ppt-" + request + "-workers"), "count", 2)));

        cluster.grant("market-r1", 2, "r1");
        cluster.advance(Duration.ofSeconds(10));
        cluster.provisioningStatus(request, Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Provisioned", "True", "Provisioned", "2 of 2 granted nodes ready"});

        List<Pod> running = cluster.client.pods().inNamespace("default").list().getItems();
        assertThat(running).hasSize(2).allSatisfy(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(node(p)).containsEntry(SimulatedCluster.REQUEST_LABEL, "r1");
        });
        assertThat(running).extracting(p -> p.getSpec().getNodeName()).doesNotHaveDuplicates();

        cluster.provisioningStatus(request, Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Failed", "True", "MarketRevoked", "the market took the nodes back"});
        assertThat(((Map<?, ?>) cluster.get("jobset.x-k8s.io/v1alpha2", "JobSet", "train").get("spec")).get("suspend")).isEqualTo(true);
        assertThat(cluster.client.batch().v1().jobs().inNamespace("default").list().getItems())
                .allSatisfy(j -> assertThat(j.getSpec().getSuspend()).isTrue());
        cluster.advance(Duration.ofSeconds(60));
        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).isEmpty();
        assertThat(cluster.get(PR_API, "ProvisioningRequest", workload.getMetadata().getName() + "-market-2")).isNotNull();
    }

    @Test
    void an_mpi_job_requests_its_workers_and_its_launcher_runs_with_them_on_the_cpu_worker() {
        cluster.installMpiOperator();
        cluster.installKueue("batch/job", "kubeflow.org/mpijob");
        cluster.installKueueWebhook();
        cluster.installMarketObjects(64);
        cluster.apply("""
                apiVersion: kubeflow.org/v2beta1
                kind: MPIJob
                metadata: {name: allreduce, namespace: default, annotations: {sim.better-compute.dev/runs-for: 5m}}
                spec:
                  slotsPerWorker: 8
                  mpiReplicaSpecs:
                    Launcher:
                      replicas: 1
                      template: {spec: {containers: [{name: launcher, image: "mpi:1"}]}}
                    Worker:
                      replicas: 2
                      template:
                        spec:
                          nodeSelector: {nationalcompute.com/node-class: h100}
                          containers: [{name: worker, image: "mpi:1", resources: {limits: {nvidia.com/gpu: 8}}}]
                """);

        assertThat(cluster.client.pods().inNamespace("default").list().getItems()).isEmpty();
        GenericKubernetesResource workload = cluster.workloadOf("allreduce");
        assertThat(workload.getMetadata().getName()).startsWith("mpijob-allreduce-");
        String request = workload.getMetadata().getName() + "-market-1";
        Map<String, Object> spec = cluster.get(PR_API, "ProvisioningRequest", request).get("spec");
        assertThat(spec.get("podSets")).isEqualTo(List.of(
                Map.of("podTemplateRef", Map.of("name", "ppt-" + request + "-worker"), "count", 2)));

        cluster.grant("market-r1", 2, "r1");
        cluster.advance(Duration.ofSeconds(10));
        cluster.provisioningStatus(request, Map.of(SimulatedCluster.REQUEST_LABEL, "r1"), ACCEPTED,
                new String[] {"Provisioned", "True", "Provisioned", "2 of 2 granted nodes ready"});

        assertThat(pods("training.kubeflow.org/job-role", "worker")).hasSize(2).allSatisfy(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(node(p)).containsEntry(SimulatedCluster.REQUEST_LABEL, "r1");
        });
        assertThat(pods("training.kubeflow.org/job-role", "launcher")).singleElement().satisfies(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(node(p)).containsEntry(SimulatedKubernetesApis.NODE_POOL_LABEL, SimulatedCluster.CPU_WORKER);
        });

        cluster.advance(Duration.ofMinutes(5));
        GenericKubernetesResource done = cluster.get("kubeflow.org/v2beta1", "MPIJob", "allreduce");
        assertThat(condition(done, "Succeeded")).containsEntry("status", "True");
        assertThat(condition(cluster.workloadOf("allreduce"), "Finished")).containsEntry("status", "True");
    }

    private static String deployment(String name, int replicas, int gpus) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %1$s, namespace: default}
                spec:
                  replicas: %2$d
                  selector: {matchLabels: {app: %1$s}}
                  template:
                    metadata: {labels: {app: %1$s}}
                    spec:
                      %3$s
                      containers: [{name: %1$s, image: "server:1"%4$s}]
                """.formatted(name, replicas, gpus > 0 ? "nodeSelector: {nationalcompute.com/node-class: h100}" : "",
                gpus > 0 ? ", resources: {limits: {nvidia.com/gpu: " + gpus + "}}" : "");
    }

    private static String gpuPod(String name) {
        return """
                apiVersion: v1
                kind: Pod
                metadata: {name: %s, namespace: default, labels: {kueue.x-k8s.io/queue-name: default}}
                spec:
                  nodeSelector: {nationalcompute.com/node-class: h100}
                  containers: [{name: serve, image: "server:1", resources: {limits: {nvidia.com/gpu: 8}}}]
                """.formatted(name);
    }

    private static String jobSet(String name, String runsFor) {
        return """
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata: {name: %s, namespace: default%s}
                spec:
                  replicatedJobs:
                  - name: workers
                    replicas: 2
                    template:
                      spec:
                        parallelism: 1
                        completions: 1
                        template:
                          spec:
                            restartPolicy: Never
                            nodeSelector: {nationalcompute.com/node-class: h100}
                            containers: [{name: train, image: "trainer:1", resources: {limits: {nvidia.com/gpu: 8}}}]
                """.formatted(name, runsFor == null ? "" : ", annotations: {sim.better-compute.dev/runs-for: " + runsFor + "}");
    }

    private List<Pod> pods(String label, String value) {
        return cluster.client.pods().inNamespace("default").withLabel(label, value).list().getItems();
    }

    private Map<String, String> node(Pod p) {
        return cluster.client.nodes().withName(p.getSpec().getNodeName()).get().getMetadata().getLabels();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(GenericKubernetesResource r, String type) {
        for (Object c : (List<Object>) ((Map<String, Object>) r.get("status")).get("conditions")) {
            if (type.equals(((Map<String, Object>) c).get("type"))) {
                return (Map<String, Object>) c;
            }
        }
        return Map.of();
    }
}
