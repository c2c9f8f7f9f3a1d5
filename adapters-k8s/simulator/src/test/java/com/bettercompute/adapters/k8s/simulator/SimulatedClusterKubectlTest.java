package com.bettercompute.adapters.k8s.simulator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real {@code kubectl} (1.32) against a simulated cluster playing Kueue: what a tenant types works —
 * apply and re-apply a Job, get and describe Workloads and ProvisioningRequests, cordon and taint a node.
 * Skipped where the machine has no {@code kubectl}.
 */
class SimulatedClusterKubectlTest {
    private static SimulatedCluster.World world;
    private static SimulatedCluster cluster;
    private static Kubectl kubectl;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        assumeTrue(Kubectl.available(), "kubectl is not on the PATH");
        world = new SimulatedCluster.World(new SimulatedKubernetesApis.Settings(Duration.ZERO, Duration.ofSeconds(5)));
        cluster = new SimulatedCluster(world);
        cluster.installMarket(16);
        kubectl = Kubectl.forCluster(cluster, dir).orElseThrow();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
            world.close();
        }
    }

    private static final String JOB = """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: train
              namespace: default
              labels: {kueue.x-k8s.io/priority-class: high}
            spec:
              parallelism: 2
              completions: 2
              template:
                spec:
                  restartPolicy: Never
                  containers:
                  - name: train
                    image: trainer:%s
                    resources: {limits: {nvidia.com/gpu: 8}}
            """;

    @Test
    void a_tenant_applies_a_job_and_reads_its_workload_and_provisioning_request() throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, JOB.formatted("1"));
        Kubectl.Run apply = run("apply", "-f", job.toString());
        assertThat(apply.exit()).as(apply.output()).isZero();
        assertThat(apply.output()).contains("job.batch/train created");

        String workload = cluster.workloadOf("train").getMetadata().getName();
        Kubectl.Run workloads = run("get", "workloads");
        assertThat(workloads.exit()).as(workloads.output()).isZero();
        assertThat(workloads.output()).contains(workload).contains("RESERVED IN").contains("market");
        Kubectl.Run jobs = run("get", "jobs");
        assertThat(jobs.output()).containsPattern("train\\s+Suspended\\s+0/2");

        String request = workload + "-market-1";
        cluster.provisioningStatus(request, Map.of(), new String[] {"Accepted", "True", "Accepted", "read by the market"},
                new String[] {"Provisioned", "False", "BidTooLow", "your limit price is below the clearing price"});
        Kubectl.Run requests = run("get", "provisioningrequests");
        assertThat(requests.exit()).as(requests.output()).isZero();
        assertThat(requests.output()).contains(request);
        Kubectl.Run describe = run("describe", "provisioningrequest", request);
        assertThat(describe.exit()).as(describe.output()).isZero();
        assertThat(describe.output()).contains("BidTooLow").contains("your limit price is below the clearing price")
                .contains("market.nationalcompute.com");
        Kubectl.Run describeWorkload = run("describe", "workload", workload);
        assertThat(describeWorkload.exit()).as(describeWorkload.output()).isZero();
        assertThat(describeWorkload.output()).contains("your limit price is below the clearing price");

        Files.writeString(job, JOB.formatted("2"));
        Kubectl.Run reapply = run("apply", "-f", job.toString());
        assertThat(reapply.exit()).as(reapply.output()).isZero();
        assertThat(cluster.client.batch().v1().jobs().inNamespace("default").withName("train").get()
                .getSpec().getTemplate().getSpec().getContainers()).singleElement().satisfies(c -> assertThat(c.getImage()).isEqualTo("trainer:2"));

        Kubectl.Run describeJob = run("describe", "job", "train");
        assertThat(describeJob.exit()).as(describeJob.output()).isZero();
        assertThat(describeJob.output()).contains("Suspend:        true").contains("trainer:2");
    }

    @Test
    void cordon_and_taint_reach_the_node() throws Exception {
        String node = cluster.client.nodes().list().getItems().get(0).getMetadata().getName();
        // the CPU worker's role, as the platform labels it (a kubelet may not give itself a node-role label)
        Kubectl.Run label = run("label", "node", node, "node-role.kubernetes.io/cpu=");
        assertThat(label.exit()).as(label.output()).isZero();
        Kubectl.Run cordon = run("cordon", node);
        assertThat(cordon.exit()).as(cordon.output()).isZero();
        Kubectl.Run taint = run("taint", "node", node, "nationalcompute.com/preempting=true:NoSchedule");
        assertThat(taint.exit()).as(taint.output()).isZero();
        assertThat(cluster.client.nodes().withName(node).get().getSpec().getUnschedulable()).isTrue();
        assertThat(cluster.client.nodes().withName(node).get().getSpec().getTaints())
                .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nationalcompute.com/preempting"));
        Kubectl.Run nodes = run("get", "nodes");
        assertThat(nodes.output()).containsPattern(node + "\\s+Ready,SchedulingDisabled\\s+cpu");
        Kubectl.Run describe = run("describe", "node", node);
        assertThat(describe.exit()).as(describe.output()).isZero();
        assertThat(describe.output()).contains("Roles:              cpu").contains("Unschedulable:      true");
    }

    @Test
    void a_cpu_job_shows_its_running_pod_and_node() throws Exception {
        cluster.pools.put("spare", SimulatedKubernetesApis.NodePool.plain(1));
        cluster.apis.step();
        Path job = dir.resolve("prep.yaml");
        Files.writeString(job, """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: prep, namespace: default}
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: prep, image: prep:1}]
                """);
        assertThat(run("apply", "-f", job.toString()).exit()).isZero();

        Kubectl.Run pods = run("get", "pods", "-o", "wide", "-l", "job-name=prep");
        assertThat(pods.exit()).as(pods.output()).isZero();
        assertThat(pods.output()).containsPattern("prep-\\w{5}\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+gke-" + cluster.name);
    }

    @Test
    void kubectl_reads_events_where_describe_and_get_events_look_for_them_in_either_form_and_a_pods_log() throws Exception {
        cluster.pools.put("spare", SimulatedKubernetesApis.NodePool.plain(1));
        cluster.apis.step();
        cluster.apply("""
                apiVersion: batch/v1
                kind: Job
                metadata: {name: chronicle, namespace: default}
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: chronicle, image: "chronicle:1"}]
                """);
        io.fabric8.kubernetes.api.model.batch.v1.Job job = cluster.client.batch().v1().jobs().inNamespace("default").withName("chronicle").get();
        io.fabric8.kubernetes.api.model.Pod pod = cluster.client.pods().inNamespace("default").withLabel("job-name", "chronicle")
                .list().getItems().get(0);
        String node = pod.getSpec().getNodeName();
        // as the platform posts them: on the job by its uid, on a node by its name as uid (as the kubelet does), on a pod
        event("chronicle.1", "Job", "batch/v1", "default", "chronicle", job.getMetadata().getUid(), "Normal", "Outbid", "A higher bid took the supply.");
        event("chronicle.2", "Job", "batch/v1", "default", "chronicle", job.getMetadata().getUid(), "Normal", "NodeGranted", "The market granted a node.");
        event("chronicle.3", "Node", "v1", null, node, node, "Warning", "NodePreempting", "The market reclaims this node.");
        event("chronicle.4", "Pod", "v1", "default", pod.getMetadata().getName(), pod.getMetadata().getUid(), "Warning",
                "NodePreempting", "The market reclaims this pod's node.");
        event("other.1", "Job", "batch/v1", "default", "other", "uid-other", "Normal", "Elsewhere", "Another job's event.");
        // and one in the newer form, which kubectl reads in the core one
        cluster.client.genericKubernetesResources("events.k8s.io/v1", "Event").inNamespace("default").resource(
                cluster.client.getKubernetesSerialization().unmarshal("""
                        {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "chronicle.5", "namespace": "default"},
                         "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "nationalcompute-market",
                         "reportingInstance": "nationalcompute-market", "action": "Provision", "type": "Normal",
                         "reason": "Provisioned", "note": "Every granted node is ready.",
                         "regarding": {"apiVersion": "batch/v1", "kind": "Job", "namespace": "default", "name": "chronicle",
                                       "uid": "%s"}}
                        """.formatted(job.getMetadata().getUid()), io.fabric8.kubernetes.api.model.GenericKubernetesResource.class)).create();

        Kubectl.Run describeJob = run("describe", "job", "chronicle");
        assertThat(describeJob.exit()).as(describeJob.output()).isZero();
        String jobEvents = describeJob.output().substring(describeJob.output().indexOf("Events:"));
        assertThat(jobEvents).contains("Outbid", "A higher bid took the supply.", "NodeGranted", "Provisioned", "nationalcompute-market")
                .doesNotContain("<none>").doesNotContain("Elsewhere");
        Kubectl.Run describeNode = run("describe", "node", node);
        assertThat(describeNode.output().substring(describeNode.output().indexOf("Events:"))).contains("NodePreempting")
                .contains("The market reclaims this node.");
        assertThat(describeNode.output()).as("its running pods, by their node").contains(pod.getMetadata().getName());
        Kubectl.Run describePod = run("describe", "pod", pod.getMetadata().getName());
        assertThat(describePod.output().substring(describePod.output().indexOf("Events:"))).contains("The market reclaims this pod's node.");

        Kubectl.Run events = run("get", "events");
        assertThat(events.exit()).as(events.output()).isZero();
        assertThat(events.output()).containsPattern("LAST SEEN\\s+TYPE\\s+REASON\\s+OBJECT\\s+MESSAGE")
                .containsPattern("\\S+\\s+Normal\\s+Outbid\\s+job/chronicle\\s+A higher bid took the supply.")
                .containsPattern("Warning\\s+NodePreempting\\s+node/" + node);
        Kubectl.Run selected = run("get", "events", "--field-selector", "involvedObject.kind=Pod");
        assertThat(selected.output()).contains("pod/" + pod.getMetadata().getName()).doesNotContain("job/chronicle");
        assertThat(cluster.client.genericKubernetesResources("events.k8s.io/v1", "Event").inNamespace("default").withName("chronicle.1")
                .get().getAdditionalProperties()).containsEntry("note", "A higher bid took the supply.").containsKey("regarding");

        Kubectl.Run logs = run("logs", pod.getMetadata().getName());
        assertThat(logs.exit()).as(logs.output()).isZero();
        assertThat(logs.output()).contains("simulated container chronicle (image chronicle:1) started on node " + node);
        Kubectl.Run noSuch = run("logs", pod.getMetadata().getName(), "-c", "nosuch");
        assertThat(noSuch.output()).contains("container nosuch is not valid for pod " + pod.getMetadata().getName());
    }

    private static void event(String name, String kind, String apiVersion, String namespace, String object, String uid, String type,
                              String reason, String message) {
        cluster.client.v1().events().inNamespace("default").resource(new io.fabric8.kubernetes.api.model.EventBuilder()
                .withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewInvolvedObject().withKind(kind).withApiVersion(apiVersion).withNamespace(namespace).withName(object)
                .withUid(uid).endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message).withCount(1)
                .withFirstTimestamp("2026-01-01T00:00:00Z").withLastTimestamp("2026-01-01T00:00:00Z")
                .withNewSource().withComponent("nationalcompute-market").endSource().build()).create();
    }

    private static Kubectl.Run run(String... args) {
        return kubectl.run(args);
    }
}
