package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.SharedVolumeMounts;
import com.bettercompute.application.port.SharedVolumeMounts.VolumeMount;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared volume's objects in a tenant cluster as manifests (docs/decisions/shared-volumes.md), in the order they
 * are applied: the platform's namespace, the read-only ConfigMap that shows the volume, the DaemonSet that mounts it on
 * every node, and the validating webhook configuration that keeps the ConfigMap the platform's.
 *
 * <p>How the DaemonSet mounts: its pod has the volume's NFS export as an {@code nfs} volume (the kubelet mounts it, as
 * GKE's nodes do NFS) and the host's mount path as a {@code hostPath} volume with {@code Bidirectional} propagation; its
 * privileged container bind-mounts the first onto the second, and the bind propagates to the host, where every pod's
 * {@code hostPath} volume sees it. On its way out (a delete, a new volume rolling out) it unmounts. It tolerates every
 * taint, so GPU nodes, replacements and the CPU worker all run it.
 */
final class SharedVolumeManifests {
    static final String APP_LABEL = "app.kubernetes.io/name";
    /** On the pod template: a volume of another name rolls the DaemonSet's pods out, each unmounting the old one. */
    static final String VOLUME_ANNOTATION = "nationalcompute.com/shared-volume";
    static final String WEBHOOKS = "better-compute-shared-volume";
    static final String WEBHOOK = "shared-volume.admission.nationalcompute.com";
    /** busybox's {@code mount}, {@code umount} and {@code mountpoint} are all the container needs. */
    static final String IMAGE = "busybox:1.36.1";
    static final String SHARE = "/share";

    private SharedVolumeManifests() {
    }

    static List<GenericKubernetesResource> all(VolumeMount mount, AdmissionEndpoints.Webhooks webhooks) {
        List<GenericKubernetesResource> out = new ArrayList<>();
        out.add(namespace());
        out.add(configMap(mount));
        out.add(daemonSet(mount));
        if (webhooks != null) {
            out.add(webhooks(webhooks));
        }
        return out;
    }

    static GenericKubernetesResource namespace() {
        return resource("v1", "Namespace", SharedVolumeMounts.NAMESPACE, null);
    }

    /** What the cluster's users read: {@code kubectl get configmap shared-volume -n better-compute-system -o yaml}. */
    static GenericKubernetesResource configMap(VolumeMount mount) {
        GenericKubernetesResource r = resource("v1", "ConfigMap", SharedVolumeMounts.CONFIG_MAP, SharedVolumeMounts.NAMESPACE);
        Map<String, String> data = new LinkedHashMap<>();
        data.put("label", mount.label());
        data.put("storageName", mount.storageName());
        data.put("path", mount.path());
        data.put("sizeGiB", Integer.toString(mount.sizeGiB()));
        r.setAdditionalProperty("data", data);
        return r;
    }

    static GenericKubernetesResource daemonSet(VolumeMount mount) {
        String host = "/host" + mount.path();
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "mount");
        container.put("image", IMAGE);
        container.put("command", List.of("/bin/sh", "-c", script(host)));
        container.put("securityContext", Map.of("privileged", true));
        container.put("volumeMounts", List.of(
                Map.of("name", "share", "mountPath", SHARE),
                Map.of("name", "host", "mountPath", host, "mountPropagation", "Bidirectional")));
        container.put("readinessProbe", Map.of("exec", Map.of("command", List.of("mountpoint", "-q", host)), "periodSeconds", 10));
        container.put("resources", Map.of("requests", Map.of("cpu", "5m", "memory", "8Mi")));
        Map<String, Object> podSpec = new LinkedHashMap<>();
        podSpec.put("priorityClassName", "system-node-critical");
        // every taint: the GPU worker's, the market's notices and cordons, whatever a tenant adds
        podSpec.put("tolerations", List.of(Map.of("operator", "Exists")));
        podSpec.put("terminationGracePeriodSeconds", 30);
        podSpec.put("containers", List.of(container));
        podSpec.put("volumes", List.of(
                Map.of("name", "share", "nfs", Map.of("server", mount.server(), "path", mount.export())),
                Map.of("name", "host", "hostPath", Map.of("path", mount.path(), "type", "DirectoryOrCreate"))));
        Map<String, Object> template = new LinkedHashMap<>();
        template.put("metadata", Map.of("labels", PlatformObjectMeta.ownedLabels(Map.of(APP_LABEL, SharedVolumeMounts.DAEMON_SET)),
                "annotations", Map.of(VOLUME_ANNOTATION, mount.storageName())));
        template.put("spec", podSpec);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("selector", Map.of("matchLabels", Map.of(APP_LABEL, SharedVolumeMounts.DAEMON_SET)));
        spec.put("updateStrategy", Map.of("type", "RollingUpdate"));
        spec.put("template", template);
        GenericKubernetesResource r = resource("apps/v1", "DaemonSet", SharedVolumeMounts.DAEMON_SET, SharedVolumeMounts.DAEMON_SET_NAMESPACE);
        r.getMetadata().setLabels(PlatformObjectMeta.ownedLabels(Map.of(APP_LABEL, SharedVolumeMounts.DAEMON_SET)));
        r.setAdditionalProperty("spec", spec);
        return r;
    }

    /** Binds the export once (a restarted container finds it bound), holds it while the pod runs, unbinds on the way out. */
    static String script(String host) {
        return "set -e\n"
                + "mountpoint -q " + host + " || mount --bind " + SHARE + " " + host + "\n"
                + "trap 'umount " + host + "; exit 0' TERM INT\n"
                + "while true; do sleep 3600 & wait $!; done\n";
    }

    /**
     * The ConfigMap's guard: its change or delete by anyone but the platform goes to the platform's validating webhook,
     * which refuses it ({@code StationOwned}). Fail closed: the ConfigMap is read-only even while the webhook cannot
     * be reached.
     */
    static GenericKubernetesResource webhooks(AdmissionEndpoints.Webhooks webhooks) {
        Map<String, Object> webhook = PlatformObjectManifests.webhook(WEBHOOK, webhooks.validateUrl(), webhooks.caBundlePem(),
                List.of(PlatformObjectManifests.rule("", List.of("v1"), List.of("configmaps"), List.of("UPDATE", "DELETE"), "Namespaced")));
        webhook.put("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", SharedVolumeMounts.NAMESPACE)));
        webhook.put("objectSelector", Map.of("matchLabels", PlatformObjectMeta.OWNED));
        return PlatformObjectManifests.webhookConfiguration("ValidatingWebhookConfiguration", WEBHOOKS, List.of(webhook));
    }

    private static GenericKubernetesResource resource(String apiVersion, String kind, String name, String namespace) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(apiVersion);
        r.setKind(kind);
        r.setMetadata(PlatformObjectMeta.owned(name, namespace));
        return r;
    }
}
