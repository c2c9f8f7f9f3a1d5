package com.bettercompute.adapters.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.PodTemplateBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.util.List;
import java.util.Map;

/** What Kueue makes for a GPU Job, written into a mock cluster the way Kueue links them (owner references). */
final class KueueObjects {
    static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder().withGroup("kueue.x-k8s.io")
            .withVersion("v1beta1").withKind("Workload").withPlural("workloads").withNamespaced(true).build();

    private KueueObjects() {
    }

    static Job job(KubernetesClient client, String namespace, String name, Map<String, String> labels) {
        return client.batch().v1().jobs().inNamespace(namespace).resource(new JobBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withLabels(labels).withUid("uid-" + name).endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer().withName("train")
                .withImage("trainer").endContainer().withRestartPolicy("Never").endSpec().endTemplate().endSpec()
                .build()).create();
    }

    static GenericKubernetesResource workload(KubernetesClient client, Job job, String name) {
        GenericKubernetesResource w = new GenericKubernetesResource();
        w.setApiVersion("kueue.x-k8s.io/v1beta1");
        w.setKind("Workload");
        w.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(job.getMetadata().getNamespace())
                .withUid("uid-" + name)
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                        .withName(job.getMetadata().getName()).withUid(job.getMetadata().getUid()).withController(true).build())
                .build());
        w.setAdditionalProperty("spec", Map.of("queueName", "default"));
        return client.genericKubernetesResources(WORKLOADS).inNamespace(job.getMetadata().getNamespace()).resource(w).create();
    }

    static PodTemplate template(KubernetesClient client, String namespace, String name, int gpusPerPod, String nodeClass) {
        return client.v1().podTemplates().inNamespace(namespace).resource(new PodTemplateBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withNewTemplate().withNewSpec()
                .withNodeSelector(nodeClass == null ? Map.of() : Map.of("nationalcompute.com/node-class", nodeClass))
                .addNewContainer().withName("train").withImage("trainer").withNewResources()
                .withLimits(Map.of("nvidia.com/gpu", new Quantity(Integer.toString(gpusPerPod)))).endResources().endContainer()
                .endSpec().endTemplate().build()).create();
    }

    static GenericKubernetesResource request(KubernetesClient client, GenericKubernetesResource workload, String name,
                                             String provisioningClass, String template, int count) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion("autoscaling.x-k8s.io/v1");
        r.setKind("ProvisioningRequest");
        r.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(workload.getMetadata().getNamespace())
                .withLabels(Map.of("kueue.x-k8s.io/managed", "true"))
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(workload.getApiVersion()).withKind("Workload")
                        .withName(workload.getMetadata().getName()).withUid(workload.getMetadata().getUid())
                        .withController(true).build())
                .build());
        r.setAdditionalProperty("spec", Map.of("provisioningClassName", provisioningClass,
                "podSets", List.of(Map.of("podTemplateRef", Map.of("name", template), "count", count))));
        return client.genericKubernetesResources(Fabric8DemandWatch.PROVISIONING_REQUESTS)
                .inNamespace(workload.getMetadata().getNamespace()).resource(r).create();
    }
}
