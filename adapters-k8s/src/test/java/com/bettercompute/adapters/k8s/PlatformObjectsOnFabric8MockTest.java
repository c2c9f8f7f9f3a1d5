package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API shapes of the platform's Kueue objects written by {@link Fabric8MarketClusterClient} into fabric8's
 * CRUD mock: what is created, that it is kept as declared, and that a max cluster size change reaches the
 * ClusterQueue. Not a Kueue integration test: the mock validates no schema and runs no webhook.
 */
class PlatformObjectsOnFabric8MockTest {
    static final PlatformObjects OBJECTS = new PlatformObjects(32, List.of(
            new NodeClass("h100-8x", Map.of("nationalcompute.com/node-class", "h100-8x"))));

    CrudMockCluster cluster;
    Fabric8MarketClusterClient client;

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8MarketClusterClient(5000, 60_000);
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    GenericKubernetesResource get(String kind, String name) {
        var all = cluster.admin().genericKubernetesResources(Fabric8MarketClusterClient.kueue(kind));
        return kind.equals("LocalQueue") ? all.inNamespace("default").withName(name).get() : all.withName(name).get();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> spec(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("spec");
    }

    @Test
    void installs_the_provisioning_request_crd_with_its_status_subresource() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        var crd = cluster.admin().apiextensions().v1().customResourceDefinitions()
                .withName("provisioningrequests.autoscaling.x-k8s.io").get();
        assertThat(crd.getSpec().getGroup()).isEqualTo("autoscaling.x-k8s.io");
        assertThat(crd.getSpec().getVersions()).singleElement().satisfies(v -> {
            assertThat(v.getName()).isEqualTo("v1");
            assertThat(v.getSubresources().getStatus()).isNotNull();
        });
        assertThat(crd.getMetadata().getLabels()).containsEntry(MarketClusterClient.OWNED_BY, "platform");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "ResourceFlavor, cpu",
            "ResourceFlavor, gpu-h100-8x",
            "ClusterQueue, market",
            "LocalQueue, default",
            "AdmissionCheck, market",
            "ProvisioningRequestConfig, market",
            "WorkloadPriorityClass, low",
            "WorkloadPriorityClass, normal",
            "WorkloadPriorityClass, high"})
    void installs_each_platform_object_labelled_as_the_platforms(String kind, String name) {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        GenericKubernetesResource r = get(kind, name);
        assertThat(r).as(kind + " " + name).isNotNull();
        assertThat(r.getMetadata().getLabels()).containsEntry(MarketClusterClient.OWNED_BY, "platform");
    }

    @Test
    void the_gpu_flavor_carries_the_node_labels_and_the_gpu_worker_taint_and_its_toleration() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        Map<String, Object> spec = spec(get("ResourceFlavor", "gpu-h100-8x"));
        assertThat(spec.get("nodeLabels")).isEqualTo(Map.of("nationalcompute.com/node-class", "h100-8x"));
        assertThat(spec.get("nodeTaints")).isEqualTo(List.of(Map.of("key", "nationalcompute.com/gpu-worker",
                "value", "true", "effect", "NoSchedule")));
        assertThat((List<?>) spec.get("tolerations")).hasSize(1);
        assertThat(spec(get("ResourceFlavor", "cpu"))).doesNotContainKey("nodeTaints");
    }

    @Test
    void the_cluster_queue_holds_the_max_cluster_size_as_gpu_quota_and_checks_gpu_flavors_only() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        Map<String, Object> spec = spec(get("ClusterQueue", "market"));
        assertThat(gpuQuota(spec, "gpu-h100-8x")).isEqualTo("32");
        assertThat(gpuQuota(spec, "cpu")).isEqualTo("0");
        assertThat(spec.get("admissionChecksStrategy")).isEqualTo(Map.of("admissionChecks",
                List.of(Map.of("name", "market", "onFlavors", List.of("gpu-h100-8x")))));
        assertThat(spec(get("LocalQueue", "default"))).containsEntry("clusterQueue", "market");
    }

    @Test
    void the_admission_check_points_at_the_markets_provisioning_request_config() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        Map<String, Object> check = spec(get("AdmissionCheck", "market"));
        assertThat(check).containsEntry("controllerName", "kueue.x-k8s.io/provisioning-request");
        assertThat(check.get("parameters")).isEqualTo(Map.of("apiGroup", "kueue.x-k8s.io",
                "kind", "ProvisioningRequestConfig", "name", "market"));
        Map<String, Object> config = spec(get("ProvisioningRequestConfig", "market"));
        assertThat(config).containsEntry("provisioningClassName", "market.nationalcompute.com");
        assertThat(config.get("podSetUpdates")).isEqualTo(Map.of("nodeSelector", List.of(
                Map.of("key", "nationalcompute.com/request", "valueFromProvisioningClassDetail", "nationalcompute.com/request"),
                Map.of("key", "cloud.google.com/gke-nodepool", "valueFromProvisioningClassDetail", "nationalcompute.com/block-node"))));
    }

    @Test
    void priority_classes_order_low_normal_high_above_a_job_without_one() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        int low = ((Number) get("WorkloadPriorityClass", "low").getAdditionalProperties().get("value")).intValue();
        int normal = ((Number) get("WorkloadPriorityClass", "normal").getAdditionalProperties().get("value")).intValue();
        int high = ((Number) get("WorkloadPriorityClass", "high").getAdditionalProperties().get("value")).intValue();
        assertThat(low).isPositive().isLessThan(normal);
        assertThat(normal).isLessThan(high);
    }

    @Test
    void a_new_max_cluster_size_updates_the_cluster_queue() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);
        client.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, OBJECTS.nodeClasses()));

        assertThat(gpuQuota(spec(get("ClusterQueue", "market")), "gpu-h100-8x")).isEqualTo("64");
    }

    @Test
    void an_edited_or_deleted_object_is_restored_and_a_matching_one_left_untouched() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);
        String untouched = get("AdmissionCheck", "market").getMetadata().getResourceVersion();
        GenericKubernetesResource queue = get("ClusterQueue", "market");
        spec(queue).put("resourceGroups", List.of());
        cluster.admin().genericKubernetesResources(Fabric8MarketClusterClient.kueue("ClusterQueue")).resource(queue).update();
        cluster.admin().genericKubernetesResources(Fabric8MarketClusterClient.kueue("WorkloadPriorityClass"))
                .withName("high").delete();

        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        assertThat(gpuQuota(spec(get("ClusterQueue", "market")), "gpu-h100-8x")).isEqualTo("32");
        assertThat(get("WorkloadPriorityClass", "high")).isNotNull();
        assertThat(get("AdmissionCheck", "market").getMetadata().getResourceVersion()).isEqualTo(untouched);
    }

    @SuppressWarnings("unchecked")
    static String gpuQuota(Map<String, Object> queueSpec, String flavor) {
        var groups = (List<Map<String, Object>>) queueSpec.get("resourceGroups");
        for (Map<String, Object> f : (List<Map<String, Object>>) groups.get(0).get("flavors")) {
            if (flavor.equals(f.get("name"))) {
                for (Map<String, Object> r : (List<Map<String, Object>>) f.get("resources")) {
                    if ("nvidia.com/gpu".equals(r.get("name"))) {
                        return String.valueOf(r.get("nominalQuota"));
                    }
                }
            }
        }
        return null;
    }
}
