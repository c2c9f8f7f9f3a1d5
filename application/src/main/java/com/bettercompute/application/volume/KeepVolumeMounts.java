package com.bettercompute.application.volume;

import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.SharedVolumeMounts;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeState;

import java.util.List;
import java.util.Optional;

/**
 * Keeps a cluster's shared volume mounted on every node and shown inside the cluster: the platform's DaemonSet and its
 * read-only ConfigMap, as {@link SharedVolumeMounts} declares them, with the admission webhook that keeps the ConfigMap
 * the platform's. Run when the cluster becomes reachable and on every resync, so a node that joins (a GPU node, a
 * replacement) gets the mount from the DaemonSet and an object someone edited or deleted converges.
 */
public final class KeepVolumeMounts {
    private final VolumeRepository volumes;
    private final ClusterConnections connections;
    private final SharedVolumeMounts mounts;
    private final AdmissionEndpoints admission;

    /** With {@code admission} null no webhook configuration is kept (the webhooks are not served). */
    public KeepVolumeMounts(VolumeRepository volumes, ClusterConnections connections, SharedVolumeMounts mounts, AdmissionEndpoints admission) {
        this.volumes = volumes;
        this.connections = connections;
        this.mounts = mounts;
        this.admission = admission;
    }

    /** The clusters whose volumes are attached now, oldest volume first: those to keep. */
    public List<String> clusters() {
        return volumes.attached().stream().map(SharedVolume::clusterId).toList();
    }

    /**
     * @return false when there was nothing to do: the cluster has no attached volume whose export is known yet, or it is
     *         not reachable yet
     * @throws com.bettercompute.application.port.ProviderException when the cluster's API failed
     */
    public boolean keep(String clusterId) {
        Optional<SharedVolume> volume = volumes.forCluster(clusterId)
                .filter(v -> v.state() == VolumeState.ATTACHED && v.export() != null);
        if (volume.isEmpty()) {
            return false;
        }
        Optional<ClusterConnection> connection = connections.of(clusterId);
        if (connection.isEmpty()) {
            return false;
        }
        SharedVolume v = volume.get();
        mounts.ensure(connection.get(), new SharedVolumeMounts.VolumeMount(v.label(), v.storageName(), v.path(), v.sizeGiB(),
                v.export().server(), v.export().path()), admission == null ? null : admission.webhooks(clusterId).orElse(null));
        return true;
    }
}
