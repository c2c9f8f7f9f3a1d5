package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API shapes of the admission webhook configurations {@link Fabric8MarketClusterClient} keeps in a cluster, on
 * fabric8's CRUD mock: registered with the platform's other objects, pointing at the platform's URLs with its
 * CA, and kept as declared. Not a Kubernetes integration test: the mock calls no webhook.
 */
class AdmissionWebhooksOnFabric8MockTest {
    static final AdmissionEndpoints.Webhooks WEBHOOKS = new AdmissionEndpoints.Webhooks(
            "https://127.0.0.1:9443/admission/kcl_a/token/validate", "https://127.0.0.1:9443/admission/kcl_a/token/mutate",
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    static final PlatformObjects OBJECTS = new PlatformObjects(32, PlatformObjectsOnFabric8MockTest.OBJECTS.nodeClasses(), WEBHOOKS);

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

    GenericKubernetesResource get(String kind) {
        GenericKubernetesResource probe = new GenericKubernetesResource();
        probe.setApiVersion(PlatformObjectManifests.ADMISSION);
        probe.setKind(kind);
        return cluster.admin().genericKubernetesResources(Fabric8MarketClusterClient.context(probe))
                .withName(PlatformObjectManifests.WEBHOOKS).get();
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> webhooks(GenericKubernetesResource r) {
        return (List<Map<String, Object>>) r.getAdditionalProperties().get("webhooks");
    }

    @Test
    void the_validating_webhooks_point_at_the_platform_with_its_ca_and_fail_closed_for_workloads() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        GenericKubernetesResource validating = get("ValidatingWebhookConfiguration");
        assertThat(validating.getMetadata().getLabels()).containsEntry(MarketClusterClient.OWNED_BY, "platform");
        List<Map<String, Object>> hooks = webhooks(validating);
        assertThat(hooks).extracting(h -> h.get("name"))
                .containsExactly("workloads.admission.nationalcompute.com", "station.admission.nationalcompute.com");
        Map<String, Object> workloads = hooks.get(0);
        assertThat(workloads.get("clientConfig")).isEqualTo(Map.of("url", WEBHOOKS.validateUrl(),
                "caBundle", Base64.getEncoder().encodeToString(WEBHOOKS.caBundlePem().getBytes(StandardCharsets.US_ASCII))));
        assertThat(workloads).containsEntry("failurePolicy", "Fail").containsEntry("sideEffects", "None")
                .containsEntry("admissionReviewVersions", List.of("v1")).containsEntry("timeoutSeconds", 5);
        assertThat(workloads.get("rules").toString()).contains("jobs", "jobsets", "mpijobs", "pods", "CREATE");
        assertThat(workloads.get("namespaceSelector").toString()).contains("NotIn", "kube-system", "kueue-system");
        Map<String, Object> station = hooks.get(1);
        assertThat(station.get("rules").toString()).contains("kueue.x-k8s.io", "clusterqueues", "resourceflavors",
                "admissionchecks", "workloadpriorityclasses", "UPDATE", "DELETE");
        assertThat(station.get("objectSelector")).isEqualTo(Map.of("matchLabels", Map.of(MarketClusterClient.OWNED_BY, "platform")));
    }

    @Test
    void the_mutating_webhook_takes_the_same_workloads_at_the_mutate_url() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        List<Map<String, Object>> hooks = webhooks(get("MutatingWebhookConfiguration"));
        assertThat(hooks).singleElement().satisfies(h -> {
            assertThat(((Map<?, ?>) h.get("clientConfig")).get("url")).isEqualTo(WEBHOOKS.mutateUrl());
            assertThat(h).containsEntry("failurePolicy", "Fail").containsEntry("reinvocationPolicy", "Never");
        });
    }

    @Test
    void an_edited_or_deleted_webhook_configuration_is_put_back_at_the_next_keep() {
        client.ensurePlatformObjects(cluster.connection(), OBJECTS);
        GenericKubernetesResource edited = get("ValidatingWebhookConfiguration");
        webhooks(edited).get(0).put("failurePolicy", "Ignore");
        GenericKubernetesResource probe = get("MutatingWebhookConfiguration");
        cluster.admin().genericKubernetesResources(Fabric8MarketClusterClient.context(edited)).resource(edited).update();
        cluster.admin().genericKubernetesResources(Fabric8MarketClusterClient.context(probe)).withName(PlatformObjectManifests.WEBHOOKS).delete();

        client.ensurePlatformObjects(cluster.connection(), OBJECTS);

        assertThat(webhooks(get("ValidatingWebhookConfiguration")).get(0)).containsEntry("failurePolicy", "Fail");
        assertThat(get("MutatingWebhookConfiguration")).isNotNull();
    }

    @Test
    void no_webhook_is_registered_while_the_platform_serves_none() {
        client.ensurePlatformObjects(cluster.connection(), PlatformObjectsOnFabric8MockTest.OBJECTS);

        assertThat(get("ValidatingWebhookConfiguration")).isNull();
        assertThat(get("MutatingWebhookConfiguration")).isNull();
    }
}
