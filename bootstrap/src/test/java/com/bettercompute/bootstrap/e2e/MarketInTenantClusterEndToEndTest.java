package com.bettercompute.bootstrap.e2e;

import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The market inside a tenant cluster on the real server (embedded H2, the in-process GKE simulator and its
 * simulated Kubernetes API, reconcilers and the tick every second): once acme's cluster is enrolled the
 * platform's Kueue objects appear in it; the objects Kueue would make for a 16-GPU Job (written here by the
 * test, to pin what the product reads apart from the simulated Kueue; {@link MarketJobEndToEndTest} lets the
 * simulated Kueue make them from a real Job) are read as demand, the market grants two nodes, two provider
 * node pools make them, their nodes join labelled for the request, and the ProvisioningRequest turns
 * Provisioned=True with the request label in its class details, the Job carrying the verdicts as Events.
 */
class MarketInTenantClusterEndToEndTest {
    static final Duration PATIENCE = Duration.ofSeconds(90);
    static final ResourceDefinitionContext KUEUE_QUEUES = new ResourceDefinitionContext.Builder().withGroup("kueue.x-k8s.io")
            .withVersion("v1beta1").withKind("ClusterQueue").withPlural("clusterqueues").withNamespaced(false).build();
    static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder().withGroup("kueue.x-k8s.io")
            .withVersion("v1beta1").withKind("Workload").withPlural("workloads").withNamespaced(true).build();
    static final ResourceDefinitionContext PROVREQS = new ResourceDefinitionContext.Builder().withGroup("autoscaling.x-k8s.io")
            .withVersion("v1").withKind("ProvisioningRequest").withPlural("provisioningrequests").withNamespaced(true).build();

    static <T> T await(String what, Supplier<T> probe) {
        return await(what, PATIENCE, probe);
    }

    static <T> T await(String what, Duration patience, Supplier<T> probe) {
        Instant deadline = Instant.now().plus(patience);
        while (true) {
            T found;
            try {
                found = probe.get();
            } catch (RuntimeException e) {
                found = null;
            }
            if (found != null) {
                return found;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("never: " + what);
            }
            ReconcilerEndToEndTest.pause(Duration.ofMillis(250));
        }
    }

    @Test
    void a_kueue_request_in_an_enrolled_cluster_gets_market_nodes_and_reads_provisioned() throws Exception {
        Path catalog = MarketApiEndToEndTest.catalog();
        try (RunningServer s = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(catalog).withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(1))) {
            String clusterId = s.call("create", RunningServer.ALICE, ClustersApiContract.standard("acme", "kueue-e2e"))
                    .json().get("id").asText();
            await("the cluster is ready", () -> {
                JsonNode c = s.call("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", clusterId)).json();
                return c.get("state").asText().equals("ready") ? c : null;
            });
            assertThat(MarketApiEndToEndTest.send(s, "PUT", "/api/operator/market/clusters", RunningServer.OPS,
                    "{\"cluster_id\":\"" + clusterId + "\",\"max_cluster_gpus\":32}").status()).isEqualTo(200);
            assertThat(MarketApiEndToEndTest.send(s, "PUT", "/api/k8s/bid", RunningServer.ALICE,
                    "{\"cluster\":\"kueue-e2e\",\"limit_price\":\"2.40\"}").status()).isEqualTo(200);
            String kubeconfig = s.call("credentials", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", clusterId,
                    "role", "admin")).json().get("kubeconfig").asText();

            try (KubernetesClient k = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
                GenericKubernetesResource queue = await("ClusterQueue market", () -> k.genericKubernetesResources(KUEUE_QUEUES)
                        .withName("market").get());
                assertThat(queue.getMetadata().getLabels()).containsEntry("nationalcompute.com/owned-by", "platform");

                kueueFilesAJob(k);

                GenericKubernetesResource provisioned = await("Provisioned=True", () -> {
                    GenericKubernetesResource r = k.genericKubernetesResources(PROVREQS).inNamespace("default")
                            .withName("job-train-3f2a1-market-1").get();
                    return conditionStatus(r, "Provisioned").equals("True") ? r : null;
                });
                assertThat(conditionStatus(provisioned, "Accepted")).isEqualTo("True");
                @SuppressWarnings("unchecked")
                Map<String, Object> status = (Map<String, Object>) provisioned.getAdditionalProperties().get("status");
                @SuppressWarnings("unchecked")
                String requestLabel = ((Map<String, String>) status.get("provisioningClassDetails")).get("nationalcompute.com/request");
                assertThat(requestLabel).startsWith("r-");
                List<Node> granted = k.nodes().withLabel("nationalcompute.com/request", requestLabel).list().getItems();
                assertThat(granted).hasSize(2).allSatisfy(n -> assertThat(n.getSpec().getTaints())
                        .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nationalcompute.com/gpu-worker")));
                assertThat(k.v1().events().inNamespace("default").list().getItems())
                        .filteredOn(e -> "train".equals(e.getInvolvedObject().getName()))
                        .extracting(e -> e.getReason()).contains("NodeGranted", "Provisioned");
            }
        }
    }

    static String conditionStatus(GenericKubernetesResource r, String type) {
        return condition(r, type, "status");
    }

    /** A field of the request's condition of that type, or "" when it has none. */
    static String condition(GenericKubernetesResource r, String type, String field) {
        if (r == null || !(r.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
                || !(status.get("conditions") instanceof List<?> conditions)) {
            return "";
        }
        for (Object o : conditions) {
            if (o instanceof Map<?, ?> c && type.equals(c.get("type"))) {
                return String.valueOf(c.get(field));
            }
        }
        return "";
    }

    /** What Kueue would make for a suspended 2-pod Job of 8 GPUs each: Workload, PodTemplate, ProvisioningRequest. */
    static void kueueFilesAJob(KubernetesClient k) {
        Job job = k.batch().v1().jobs().inNamespace("default").resource(new JobBuilder()
                .withNewMetadata().withName("train").withNamespace("default").endMetadata()
                .withNewSpec().withSuspend(true).withParallelism(2).withNewTemplate().withNewSpec().addNewContainer()
                .withName("train").withImage("trainer").endContainer().withRestartPolicy("Never").endSpec().endTemplate()
                .endSpec().build()).create();
        GenericKubernetesResource workload = new GenericKubernetesResource();
        workload.setApiVersion("kueue.x-k8s.io/v1beta1");
        workload.setKind("Workload");
        workload.setMetadata(new ObjectMetaBuilder().withName("job-train-3f2a1").withNamespace("default")
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job").withName("train")
                        .withUid(job.getMetadata().getUid()).withController(true).build()).build());
        workload.setAdditionalProperty("spec", Map.of("queueName", "default"));
        workload = k.genericKubernetesResources(WORKLOADS).inNamespace("default").resource(workload).create();
        k.v1().podTemplates().inNamespace("default").resource(new PodTemplateBuilder()
                .withNewMetadata().withName("ppt-job-train-3f2a1-market-1-main").withNamespace("default").endMetadata()
                .withNewTemplate().withNewSpec().withNodeSelector(Map.of("nationalcompute.com/node-class", "h100-8x"))
                .addNewContainer().withName("train").withImage("trainer").withNewResources()
                .withLimits(Map.of("nvidia.com/gpu", new Quantity("8"))).endResources().endContainer()
                .endSpec().endTemplate().build()).create();
        GenericKubernetesResource request = new GenericKubernetesResource();
        request.setApiVersion("autoscaling.x-k8s.io/v1");
        request.setKind("ProvisioningRequest");
        request.setMetadata(new ObjectMetaBuilder().withName("job-train-3f2a1-market-1").withNamespace("default")
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("kueue.x-k8s.io/v1beta1").withKind("Workload")
                        .withName("job-train-3f2a1").withUid(workload.getMetadata().getUid()).withController(true).build())
                .build());
        request.setAdditionalProperty("spec", Map.of("provisioningClassName", "market.nationalcompute.com",
                "podSets", List.of(Map.of("podTemplateRef", Map.of("name", "ppt-job-train-3f2a1-market-1-main"), "count", 2))));
        k.genericKubernetesResources(PROVREQS).inNamespace("default").resource(request).create();
    }
}
