package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ComponentStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The add-ons the platform keeps in every market-managed cluster, as the build bundles them
 * ({@code cluster-components/}, docs/decisions/cluster-components.md): an index naming each add-on, its
 * pinned version, its manifest and the manifest's SHA-256, checked at load (a bundle that does not match is
 * refused, never applied); and their application to a cluster, in order, as declared objects kept by
 * {@link Fabric8MarketClusterClient#ensure}, then each controller Deployment's availability.
 */
final class ClusterComponents {
    static final String DIRECTORY = "cluster-components/";
    static final String INDEX = DIRECTORY + "components.yaml";
    static final String PART_OF = "app.kubernetes.io/part-of";
    static final String VERSION = "app.kubernetes.io/version";

    /** One add-on: its pinned version, its objects in the order they are applied, its controller Deployment. */
    record Component(String name, String version, List<GenericKubernetesResource> objects, String controllerNamespace,
                     String controller) {
        Component {
            objects = List.copyOf(objects);
        }
    }

    /** The add-ons in the order they are applied. */
    record Bundle(List<Component> components) {
        Bundle {
            components = List.copyOf(components);
        }

        /** This bundle with one add-on changed (a new pinned version, in tests). */
        Bundle with(String name, UnaryOperator<Component> change) {
            return new Bundle(components.stream().map(c -> c.name().equals(name) ? change.apply(c) : c).toList());
        }
    }

    /** How objects are ordered inside an add-on: what others need comes first (namespace, kinds, identity, config). */
    private static final List<String> KIND_ORDER = List.of("Namespace", "CustomResourceDefinition", "ServiceAccount",
            "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Secret", "Service", "Deployment",
            "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration");

    /** Where each kind of the bundle lives: addressed explicitly, so no API discovery is needed. */
    private static final Map<String, ResourceDefinitionContext> CONTEXTS = contexts();

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private ClusterComponents() {
    }

    private static Map<String, ResourceDefinitionContext> contexts() {
        Map<String, ResourceDefinitionContext> out = new LinkedHashMap<>();
        out.put("Namespace", context("", "v1", "Namespace", "namespaces", false));
        out.put("CustomResourceDefinition", context("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false));
        out.put("ServiceAccount", context("", "v1", "ServiceAccount", "serviceaccounts", true));
        out.put("ClusterRole", context("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false));
        out.put("ClusterRoleBinding", context("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false));
        out.put("ConfigMap", context("", "v1", "ConfigMap", "configmaps", true));
        out.put("Secret", context("", "v1", "Secret", "secrets", true));
        out.put("Service", context("", "v1", "Service", "services", true));
        out.put("Deployment", context("apps", "v1", "Deployment", "deployments", true));
        out.put("MutatingWebhookConfiguration", context("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
                "mutatingwebhookconfigurations", false));
        out.put("ValidatingWebhookConfiguration", context("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
                "validatingwebhookconfigurations", false));
        return out;
    }

    private static ResourceDefinitionContext context(String group, String version, String kind, String plural, boolean namespaced) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind).withPlural(plural)
                .withNamespaced(namespaced).build();
    }

    static ResourceDefinitionContext contextOf(GenericKubernetesResource object) {
        ResourceDefinitionContext c = CONTEXTS.get(object.getKind());
        if (c == null) {
            throw new IllegalStateException("the cluster components bundle holds a " + object.getKind()
                    + ", which the platform does not know how to apply");
        }
        return c;
    }

    // ---------------------------------------------------------------- loading

    /** The bundle the build carries, its checksums verified. */
    static Bundle bundled() {
        return bundled(ClusterComponents::read);
    }

    /** The bundle as {@code read} gives its resources (by path), its checksums verified. */
    static Bundle bundled(java.util.function.Function<String, String> read) {
        KubernetesSerialization yaml = JSON;
        Map<String, Object> index = yaml.unmarshal(read.apply(INDEX), Map.class);
        List<Component> components = new ArrayList<>();
        for (Object o : (List<?>) index.get("components")) {
            Map<?, ?> entry = (Map<?, ?>) o;
            String name = String.valueOf(entry.get("name"));
            String version = String.valueOf(entry.get("version"));
            String manifest = read.apply(DIRECTORY + entry.get("manifest"));
            String sha256 = sha256(manifest);
            if (!sha256.equals(String.valueOf(entry.get("sha256")))) {
                throw new IllegalStateException("the bundled manifest of " + name + " " + version + " (" + entry.get("manifest")
                        + ") has SHA-256 " + sha256 + ", not the " + entry.get("sha256") + " its index records: it is not the "
                        + "manifest that was pinned");
            }
            String[] controller = String.valueOf(entry.get("controller")).split("/", 2);
            components.add(new Component(name, version, objects(yaml, manifest, name, version), controller[0], controller[1]));
        }
        return new Bundle(components);
    }

    private static List<GenericKubernetesResource> objects(KubernetesSerialization yaml, String manifest, String component, String version) {
        List<GenericKubernetesResource> out = new ArrayList<>();
        for (String document : manifest.split("(?m)^---\\s*$")) {
            if (document.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) {
                continue;
            }
            GenericKubernetesResource object = yaml.unmarshal(document, GenericKubernetesResource.class);
            contextOf(object);
            Map<String, String> labels = new LinkedHashMap<>(object.getMetadata().getLabels() == null ? Map.of()
                    : object.getMetadata().getLabels());
            labels.put(MarketClusterClient.OWNED_BY, "platform");
            labels.put(PART_OF, component.toLowerCase(java.util.Locale.ROOT).replace(' ', '-'));
            labels.put(VERSION, version);
            object.getMetadata().setLabels(labels);
            out.add(object);
        }
        out.sort(Comparator.comparingInt(o -> KIND_ORDER.indexOf(o.getKind())));
        return out;
    }

    static String read(String resource) {
        try (InputStream in = ClusterComponents.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the build carries no " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("the bundled " + resource + " cannot be read", e);
        }
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- applying

    /** Applies every add-on in order, then reads each one's controller. */
    static List<ComponentStatus> ensure(KubernetesClient client, Bundle bundle) {
        for (Component c : bundle.components()) {
            for (GenericKubernetesResource object : c.objects()) {
                Fabric8MarketClusterClient.ensure(client, contextOf(object), copy(object));
            }
        }
        List<ComponentStatus> out = new ArrayList<>();
        for (Component c : bundle.components()) {
            out.add(status(client, c));
        }
        return out;
    }

    private static ComponentStatus status(KubernetesClient client, Component c) {
        String where = c.controllerNamespace() + "/" + c.controller();
        GenericKubernetesResource deployment = client.genericKubernetesResources(CONTEXTS.get("Deployment"))
                .inNamespace(c.controllerNamespace()).withName(c.controller()).get();
        if (deployment == null) {
            return new ComponentStatus(c.name(), c.version(), false, "its controller Deployment " + where + " is missing");
        }
        Map<?, ?> status = deployment.getAdditionalProperties().get("status") instanceof Map<?, ?> m ? m : Map.of();
        Map<?, ?> spec = deployment.getAdditionalProperties().get("spec") instanceof Map<?, ?> m ? m : Map.of();
        long wanted = number(spec.get("replicas"), 1);
        long available = number(status.get("availableReplicas"), 0);
        long updated = number(status.get("updatedReplicas"), 0);
        if (available >= 1 && updated >= 1) {
            return new ComponentStatus(c.name(), c.version(), true, "");
        }
        return new ComponentStatus(c.name(), c.version(), false, "its controller Deployment " + where + " has " + available
                + " of " + wanted + " replicas available");
    }

    private static long number(Object value, long otherwise) {
        return value instanceof Number n ? n.longValue() : otherwise;
    }

    /** A copy to apply: {@link Fabric8MarketClusterClient#ensure} sets a resource version on what it replaces. */
    private static GenericKubernetesResource copy(GenericKubernetesResource object) {
        return JSON.unmarshal(JSON.asJson(object), GenericKubernetesResource.class);
    }
}
