package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.SharedVolumeMounts;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * {@link SharedVolumeMounts} on fabric8: the objects of {@link SharedVolumeManifests}, each kept as declared the way
 * the platform keeps its other objects ({@link Fabric8MarketClusterClient#ensure}: created when missing, replaced with
 * the resource version read when a declared field differs or the platform's label is gone). No fabric8 type leaves
 * this class.
 */
public final class Fabric8SharedVolumeMounts implements SharedVolumeMounts, AutoCloseable {
    private final ClusterApis apis;

    public Fabric8SharedVolumeMounts(int timeoutMillis) {
        this.apis = new ClusterApis(timeoutMillis);
    }

    @Override
    public void ensure(ClusterConnection cluster, VolumeMount mount, AdmissionEndpoints.Webhooks webhooks) {
        apis.call(cluster, "mount the shared volume on the cluster's nodes", client -> {
            for (GenericKubernetesResource object : SharedVolumeManifests.all(mount, webhooks)) {
                Fabric8MarketClusterClient.ensure(client, ClusterComponents.contextOf(object), object);
            }
            return null;
        });
    }

    @Override
    public void close() {
        apis.close();
    }
}
