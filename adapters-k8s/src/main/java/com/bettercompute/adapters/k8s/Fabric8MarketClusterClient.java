package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import com.bettercompute.application.port.ProviderException;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.x_k8s.autoscaling.v1.ProvisioningRequest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link MarketClusterClient} on fabric8: the autoscaler's ProvisioningRequests and Kueue's Workloads as the classes
 * generated from their CRDs ({@code src/main/crds}); the platform's own Kueue objects and webhook configurations as
 * {@link GenericKubernetesResource} manifests compared field by field ({@link #declaredIn}), addressed with explicit resource contexts so no API discovery is needed. No fabric8 type leaves this class.
 */
public final class Fabric8MarketClusterClient implements MarketClusterClient, AutoCloseable {
    static final String AUTOSCALING = "autoscaling.x-k8s.io";
    static final String PROVREQ_CRD = "provisioningrequests." + AUTOSCALING;

    /** Who posts the market's Events. */
    static final String EVENT_SOURCE = "nationalcompute-market";

    private final ClusterApis apis;
    private final long resyncMillis;
    private final ClusterComponents.Bundle components;

    /**
     * @param timeoutMillis connection and request timeout of each call
     * @param resyncMillis  how often a demand watch goes over its caches again, so a change it missed is seen
     * @throws IllegalStateException when the bundled cluster components are not the ones pinned (a checksum differs)
     */
    public Fabric8MarketClusterClient(int timeoutMillis, long resyncMillis) {
        this(timeoutMillis, resyncMillis, ClusterComponents.bundled());
    }

    Fabric8MarketClusterClient(int timeoutMillis, long resyncMillis, ClusterComponents.Bundle components) {
        this(new ClusterApis(timeoutMillis), resyncMillis, components);
    }

    Fabric8MarketClusterClient(ClusterApis apis, long resyncMillis, ClusterComponents.Bundle components) {
        this.apis = apis;
        this.resyncMillis = resyncMillis;
        this.components = components;
    }

    @Override
    public List<ComponentStatus> ensureComponents(ClusterConnection cluster) {
        return apis.call(cluster, "install the market's cluster components", client -> {
            // Kueue starts its provisioning controller only if the ProvisioningRequest API is served when it starts
            ensureProvisioningRequestApi(client);
            return ClusterComponents.ensure(client, components);
        });
    }

    @Override
    public void ensurePlatformObjects(ClusterConnection cluster, PlatformObjects objects) {
        apis.call(cluster, "install the platform's Kueue objects", client -> {
            ensureProvisioningRequestApi(client);
            for (GenericKubernetesResource wanted : PlatformObjectManifests.all(objects)) {
                ensure(client, context(wanted), wanted);
            }
            return null;
        });
    }

    @Override
    public DemandWatch watchDemand(ClusterConnection cluster, Runnable onChange) {
        return apis.watch(cluster, "watch the cluster's ProvisioningRequests", lease -> new Fabric8DemandWatch(lease, onChange, resyncMillis));
    }

    @Override
    public void writeRequestStatus(ClusterConnection cluster, String namespace, String name, RequestStatus status) {
        apis.call(cluster, "write the status of ProvisioningRequest " + namespace + "/" + name, client -> {
            var requests = client.resources(ProvisioningRequest.class).inNamespace(namespace);
            ProvisioningRequest request = requests.withName(name).get();
            if (request == null) {
                return null;
            }
            Map<String, String> annotations = new LinkedHashMap<>(request.getMetadata().getAnnotations() == null
                    ? Map.of() : request.getMetadata().getAnnotations());
            String changes = Integer.toString(status.reasonChanges());
            if (!status.marketRequest().equals(annotations.get(MARKET_REQUEST_ANNOTATION))
                    || !changes.equals(annotations.get(REASON_CHANGES_ANNOTATION))) {
                annotations.put(MARKET_REQUEST_ANNOTATION, status.marketRequest());
                annotations.put(REASON_CHANGES_ANNOTATION, changes);
                request.getMetadata().setAnnotations(annotations);
                request = requests.resource(request).update();
            }
            if (RequestStatuses.merge(request, status)) {
                requests.resource(request).updateStatus();
            }
            return null;
        });
    }

    @Override
    public void postEvent(ClusterConnection cluster, ObjectRef on, PostedEvent event) {
        apis.call(cluster, "post an Event on " + on.kind() + " " + on.namespace() + "/" + on.name(), client -> {
            post(client, on, event, EVENT_SOURCE);
            return null;
        });
    }

    /** Creates the Event (a name posted already is a success), as reported by {@code source}. */
    static void post(KubernetesClient client, ObjectRef on, PostedEvent event, String source) {
        String at = event.at().toString();
        Event e = new EventBuilder()
                .withNewMetadata().withName(event.eventName()).withNamespace(on.namespace()).endMetadata()
                .withNewInvolvedObject().withApiVersion(on.apiVersion()).withKind(on.kind())
                // A node has no namespace; its Events live in "default", as kubectl looks for them.
                .withNamespace("Node".equals(on.kind()) ? null : on.namespace())
                .withName(on.name()).withUid(on.uid()).endInvolvedObject()
                .withType(event.type()).withReason(event.reason()).withMessage(event.message())
                .withFirstTimestamp(at).withLastTimestamp(at).withCount(1)
                .withNewSource().withComponent(source).endSource()
                .withReportingComponent(source).withReportingInstance(source)
                .build();
        ClusterApis.ensureCreated(() -> client.v1().events().inNamespace(on.namespace()).resource(e).create());
    }

    @Override
    public List<ClusterNode> nodes(ClusterConnection cluster) {
        return apis.call(cluster, "list the cluster's nodes", client -> client.nodes().list().getItems().stream()
                .map(Fabric8MarketClusterClient::node).toList());
    }

    static ClusterNode node(Node n) {
        boolean ready = n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        List<NodeTaint> taints = n.getSpec() == null || n.getSpec().getTaints() == null ? List.of()
                : n.getSpec().getTaints().stream().map(t -> new NodeTaint(t.getKey(), t.getValue(), t.getEffect())).toList();
        return new ClusterNode(n.getMetadata().getName(),
                n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels(),
                n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations(), ready,
                n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable()), taints);
    }

    @Override
    public void markNode(ClusterConnection cluster, String name, NodeMarking marking) {
        apis.call(cluster, "mark node " + name, client -> {
            Node node = client.nodes().withName(name).get();
            if (node == null) {
                return null;
            }
            if (NodeMarkings.apply(node, marking)) {
                // A replace with the resourceVersion read: a concurrent write (the kubelet's) makes it fail with
                // 409 and the next pass marks again.
                client.nodes().resource(node).update();
            }
            return null;
        });
    }

    @Override
    public int labelPoolNodes(ClusterConnection cluster, String nodePool, Map<String, String> labels) {
        return apis.call(cluster, "label the nodes of pool " + nodePool, client -> {
            int written = 0;
            for (Node node : client.nodes().withLabel(NODE_POOL_LABEL, nodePool).list().getItems()) {
                Map<String, String> had = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
                if (had.entrySet().containsAll(labels.entrySet())) {
                    continue;
                }
                Map<String, String> next = new LinkedHashMap<>(had);
                next.putAll(labels);
                node.getMetadata().setLabels(next);
                // A replace with the resourceVersion read: a concurrent write (the kubelet's) fails it with 409 and the
                // next keep labels again; a node deleted meanwhile is a 404, which is done.
                try {
                    client.nodes().resource(node).update();
                    written++;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 404) {
                        throw e;
                    }
                }
            }
            return written;
        });
    }

    @Override
    public List<PodOnNode> podsOn(ClusterConnection cluster, String node) {
        return apis.call(cluster, "list the pods of node " + node, client -> client.pods().inAnyNamespace().list().getItems()
                .stream().filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()))
                .map(p -> new PodOnNode(new ObjectRef("v1", "Pod", p.getMetadata().getNamespace(), p.getMetadata().getName(),
                        p.getMetadata().getUid()), p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations(),
                        p.getMetadata().getDeletionTimestamp() != null))
                .toList());
    }

    @Override
    public void annotatePod(ClusterConnection cluster, ObjectRef pod, Map<String, String> annotations) {
        apis.call(cluster, "annotate pod " + pod.namespace() + "/" + pod.name(), client -> {
            Pod found = client.pods().inNamespace(pod.namespace()).withName(pod.name()).get();
            if (found == null) {
                return null;
            }
            Map<String, String> had = found.getMetadata().getAnnotations() == null ? Map.of() : found.getMetadata().getAnnotations();
            Map<String, String> next = new LinkedHashMap<>(had);
            next.putAll(annotations);
            if (!next.equals(had)) {
                found.getMetadata().setAnnotations(next);
                client.pods().inNamespace(pod.namespace()).resource(found).update();
            }
            return null;
        });
    }

    @Override
    public void evictPod(ClusterConnection cluster, ObjectRef pod, long graceSeconds) {
        apis.call(cluster, "evict pod " + pod.namespace() + "/" + pod.name(), client -> {
            Eviction eviction = new EvictionBuilder().withNewMetadata().withName(pod.name()).withNamespace(pod.namespace())
                    .endMetadata().withDeleteOptions(new DeleteOptionsBuilder().withGracePeriodSeconds(graceSeconds).build()).build();
            try {
                boolean evicted = client.pods().inNamespace(pod.namespace()).withName(pod.name()).evict(eviction);
                if (!evicted) {
                    // fabric8 answers false for 429: a disruption budget refuses for now.
                    throw new ProviderException(ProviderException.Kind.UNAVAILABLE,
                            "A disruption budget refuses the eviction of pod " + pod.namespace() + "/" + pod.name() + " for now.");
                }
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
            return null;
        });
    }

    /** The ProvisioningRequest CRD, where the cluster does not serve {@code autoscaling.x-k8s.io/v1} yet. */
    private static void ensureProvisioningRequestApi(KubernetesClient client) {
        APIResourceList served;
        try {
            served = client.getApiResources(AUTOSCALING + "/v1");
        } catch (KubernetesClientException e) {
            served = null;
        }
        boolean hasProvisioningRequests = served != null && served.getResources() != null
                && served.getResources().stream().anyMatch(r -> "provisioningrequests".equals(r.getName()));
        if (!hasProvisioningRequests) {
            ClusterApis.ensureCreated(() -> client.apiextensions().v1().customResourceDefinitions()
                    .resource(provisioningRequestCrd()).create());
        }
    }

    static CustomResourceDefinition provisioningRequestCrd() {
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(PROVREQ_CRD).addToLabels(OWNED_BY, "platform").endMetadata()
                .withNewSpec().withGroup(AUTOSCALING).withScope("Namespaced")
                .withNewNames().withKind("ProvisioningRequest").withListKind("ProvisioningRequestList")
                .withPlural("provisioningrequests").withSingular("provisioningrequest").withShortNames("provreq").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true)
                .withNewSubresources().withNewStatus().endStatus().endSubresources()
                .withNewSchema().withOpenAPIV3Schema(new JSONSchemaPropsBuilder().withType("object")
                        .withXKubernetesPreserveUnknownFields(true).build()).endSchema()
                .endVersion()
                .endSpec().build();
    }

    static ResourceDefinitionContext kueue(String kind) {
        boolean namespaced = kind.equals("LocalQueue");
        String plural = kind.toLowerCase(java.util.Locale.ROOT) + (kind.endsWith("s") ? "es" : "s");
        return new ResourceDefinitionContext.Builder().withGroup("kueue.x-k8s.io").withVersion("v1beta1")
                .withKind(kind).withPlural(plural).withNamespaced(namespaced).build();
    }

    /** Where a platform object lives: Kueue's API, or the API server's admission registration. */
    static ResourceDefinitionContext context(GenericKubernetesResource object) {
        if (!PlatformObjectManifests.ADMISSION.equals(object.getApiVersion())) {
            return kueue(object.getKind());
        }
        return new ResourceDefinitionContext.Builder().withGroup("admissionregistration.k8s.io").withVersion("v1")
                .withKind(object.getKind()).withPlural(object.getKind().toLowerCase(java.util.Locale.ROOT) + "s")
                .withNamespaced(false).build();
    }

    /** Creates the object, or replaces it when what we declare is not (or no longer) what it holds. */
    static void ensure(KubernetesClient client, GenericKubernetesResource wanted) {
        ensure(client, context(wanted), wanted);
    }

    static void ensure(KubernetesClient client, ResourceDefinitionContext context, GenericKubernetesResource wanted) {
        var all = client.genericKubernetesResources(context);
        var resources = wanted.getMetadata().getNamespace() == null ? all : all.inNamespace(wanted.getMetadata().getNamespace());
        GenericKubernetesResource existing = resources.withName(wanted.getMetadata().getName()).get();
        if (existing == null) {
            ClusterApis.ensureCreated(() -> resources.resource(wanted).create());
            return;
        }
        if (declaredIn(wanted, existing)) {
            return;
        }
        // A replace with the resourceVersion read: a concurrent writer makes it fail (409), and the next
        // resync tries again.
        wanted.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
        resources.resource(wanted).update();
        wanted.getMetadata().setResourceVersion(null);
    }

    /**
     * Whether every field we declare holds in {@code existing} (fields the API server or Kueue's webhook
     * defaulted beside them do not count), and it still carries our label.
     */
    static boolean declaredIn(GenericKubernetesResource wanted, GenericKubernetesResource existing) {
        Map<String, String> labels = existing.getMetadata().getLabels();
        if (labels == null || !"platform".equals(labels.get(OWNED_BY))) {
            return false;
        }
        // Compare both as parsed JSON, so numbers and quantities read alike.
        Map<String, Object> want = Serialization.unmarshal(Serialization.asJson(wanted.getAdditionalProperties()), Map.class);
        Map<String, Object> have = Serialization.unmarshal(Serialization.asJson(existing.getAdditionalProperties()), Map.class);
        return subset(want, have);
    }

    private static boolean subset(Object want, Object have) {
        if (want instanceof Map<?, ?> w) {
            if (!(have instanceof Map<?, ?> h)) {
                return false;
            }
            for (Map.Entry<?, ?> e : w.entrySet()) {
                if (!subset(e.getValue(), h.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        if (want instanceof List<?> w) {
            if (!(have instanceof List<?> h) || h.size() != w.size()) {
                return false;
            }
            for (int i = 0; i < w.size(); i++) {
                if (!subset(w.get(i), h.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return have != null && Objects.equals(String.valueOf(want), String.valueOf(have));
    }

    @Override
    public void close() {
        apis.close();
    }
}
