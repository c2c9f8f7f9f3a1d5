package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.SharedVolumeMounts;
import com.bettercompute.application.port.SharedVolumeMounts.VolumeMount;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared volume's objects written by {@link Fabric8SharedVolumeMounts} into fabric8's CRUD mock: the namespace, the
 * ConfigMap that shows the volume, the DaemonSet that mounts it on every node, the webhook that guards the ConfigMap;
 * kept as declared (an edit or a delete undone, a new volume rolled out), and nothing written when all holds. Not a
 * kubelet test: the mock runs no pod.
 */
class SharedVolumeMountsOnFabric8MockTest {
    static final VolumeMount MOUNT = new VolumeMount("train-shared", "bc-v-0123456789abcdefghjkmnpq", "/mnt/shared", 2048,
            "10.99.7.12", "/shared");
    static final AdmissionEndpoints.Webhooks WEBHOOKS = new AdmissionEndpoints.Webhooks("https://platform.example:8443/admission/kcl_x/t/validate",
            "https://platform.example:8443/admission/kcl_x/t/mutate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");

    CrudMockCluster cluster;
    Fabric8SharedVolumeMounts mounts;

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        mounts = new Fabric8SharedVolumeMounts(5000);
    }

    @AfterEach
    void stop() {
        mounts.close();
        cluster.close();
    }

    ConfigMap configMap() {
        return cluster.admin().configMaps().inNamespace(SharedVolumeMounts.NAMESPACE).withName(SharedVolumeMounts.CONFIG_MAP).get();
    }

    DaemonSet daemonSet() {
        return cluster.admin().apps().daemonSets().inNamespace(SharedVolumeMounts.DAEMON_SET_NAMESPACE).withName(SharedVolumeMounts.DAEMON_SET).get();
    }

    @Test
    void the_configmap_in_the_platforms_namespace_shows_the_volume_and_is_the_platforms() {
        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);

        assertThat(cluster.admin().namespaces().withName("better-compute-system").get().getMetadata().getLabels())
                .containsEntry(MarketClusterClient.OWNED_BY, "platform");
        ConfigMap shown = configMap();
        assertThat(shown.getData()).containsExactlyInAnyOrderEntriesOf(Map.of("label", "train-shared",
                "storageName", "bc-v-0123456789abcdefghjkmnpq", "path", "/mnt/shared", "sizeGiB", "2048"));
        assertThat(shown.getMetadata().getLabels()).containsEntry(MarketClusterClient.OWNED_BY, "platform");
    }

    @Test
    void the_daemonset_mounts_the_nfs_export_on_every_nodes_host_path_tolerating_every_taint() {
        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);

        DaemonSet set = daemonSet();
        assertThat(set.getMetadata().getLabels()).containsEntry(MarketClusterClient.OWNED_BY, "platform");
        PodSpec pod = set.getSpec().getTemplate().getSpec();
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getKey()).isNull();
            assertThat(t.getEffect()).isNull();
        });
        Volume share = pod.getVolumes().stream().filter(v -> v.getNfs() != null).findFirst().orElseThrow();
        assertThat(share.getNfs().getServer()).isEqualTo("10.99.7.12");
        assertThat(share.getNfs().getPath()).isEqualTo("/shared");
        Volume host = pod.getVolumes().stream().filter(v -> v.getHostPath() != null).findFirst().orElseThrow();
        assertThat(host.getHostPath().getPath()).isEqualTo("/mnt/shared");
        Container mount = pod.getContainers().get(0);
        assertThat(mount.getSecurityContext().getPrivileged()).isTrue();
        io.fabric8.kubernetes.api.model.VolumeMount onHost = mount.getVolumeMounts().stream().filter(m -> m.getName().equals(host.getName())).findFirst().orElseThrow();
        assertThat(onHost.getMountPropagation()).isEqualTo("Bidirectional");
        assertThat(String.join(" ", mount.getCommand())).contains("mount --bind /share " + onHost.getMountPath())
                .contains("umount " + onHost.getMountPath());
        assertThat(set.getSpec().getSelector().getMatchLabels()).isEqualTo(Map.of("app.kubernetes.io/name", "shared-volume-mount"));
        assertThat(set.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(set.getSpec().getSelector().getMatchLabels());
    }

    @Test
    void the_webhook_sends_changes_and_deletes_of_the_platforms_configmaps_in_its_namespace_and_fails_closed() {
        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);

        ValidatingWebhook webhook = cluster.admin().admissionRegistration().v1().validatingWebhookConfigurations()
                .withName("better-compute-shared-volume").get().getWebhooks().get(0);
        assertThat(webhook.getClientConfig().getUrl()).isEqualTo(WEBHOOKS.validateUrl());
        assertThat(webhook.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getResources()).containsExactly("configmaps");
            assertThat(r.getOperations()).containsExactly("UPDATE", "DELETE");
            assertThat(r.getApiGroups()).containsExactly("");
        });
        assertThat(webhook.getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "better-compute-system");
        assertThat(webhook.getObjectSelector().getMatchLabels()).containsEntry(MarketClusterClient.OWNED_BY, "platform");
        assertThat(webhook.getFailurePolicy()).isEqualTo("Fail");
    }

    @Test
    void without_served_webhooks_no_webhook_configuration_is_written() {
        mounts.ensure(cluster.connection(), MOUNT, null);

        assertThat(configMap()).isNotNull();
        assertThat(cluster.admin().admissionRegistration().v1().validatingWebhookConfigurations().list().getItems()).isEmpty();
    }

    @Test
    void an_edit_or_a_delete_is_undone_and_nothing_is_written_when_all_holds() {
        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);
        String kept = daemonSet().getMetadata().getResourceVersion();
        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);
        assertThat(daemonSet().getMetadata().getResourceVersion()).as("nothing rewritten").isEqualTo(kept);

        ConfigMap edited = configMap();
        edited.getData().put("path", "/elsewhere");
        cluster.admin().configMaps().inNamespace(SharedVolumeMounts.NAMESPACE).resource(edited).update();
        cluster.admin().apps().daemonSets().inNamespace("kube-system").withName("shared-volume-mount").delete();

        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);
        assertThat(configMap().getData()).containsEntry("path", "/mnt/shared");
        assertThat(daemonSet()).isNotNull();
    }

    @Test
    void another_volume_rolls_out_to_the_daemonset_and_the_configmap() {
        mounts.ensure(cluster.connection(), MOUNT, WEBHOOKS);
        VolumeMount next = new VolumeMount("train-shared", "bc-v-zyxwvtsrqpnmkjhgfedcba9876", "/mnt/shared", 1024, "10.99.8.3", "/shared");

        mounts.ensure(cluster.connection(), next, WEBHOOKS);

        assertThat(configMap().getData()).containsEntry("storageName", next.storageName()).containsEntry("sizeGiB", "1024");
        DaemonSet set = daemonSet();
        assertThat(set.getSpec().getTemplate().getSpec().getVolumes().stream().filter(v -> v.getNfs() != null).findFirst().orElseThrow()
                .getNfs().getServer()).isEqualTo("10.99.8.3");
        assertThat(set.getSpec().getTemplate().getMetadata().getAnnotations())
                .as("a new pod template: the nodes' pods are replaced, each unmounting the old share")
                .containsEntry("nationalcompute.com/shared-volume", next.storageName());
    }
}
