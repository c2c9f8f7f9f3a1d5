package com.bettercompute.application.port;

/**
 * The shared volume's side inside a tenant cluster (docs/decisions/shared-volumes.md): the platform's DaemonSet
 * {@value #DAEMON_SET} in {@value #DAEMON_SET_NAMESPACE} that mounts the volume's NFS export on every node's
 * {@code /mnt/shared}, and the read-only ConfigMap {@value #CONFIG_MAP} in {@value #NAMESPACE} that tells the cluster's
 * users what is mounted there. It must not know whether the cluster is real or simulated.
 *
 * <p>Failures are {@link ProviderException}s, as for {@link MarketClusterClient}; no library type and no token travels
 * with them.
 */
public interface SharedVolumeMounts {
    /** The platform's own namespace in a tenant cluster. */
    String NAMESPACE = "better-compute-system";
    String CONFIG_MAP = "shared-volume";
    String DAEMON_SET = "shared-volume-mount";
    String DAEMON_SET_NAMESPACE = "kube-system";

    /**
     * Makes the cluster mount {@code mount} on every node and show it: the namespace {@value #NAMESPACE}, the ConfigMap,
     * the DaemonSet, and, with {@code webhooks} (null: none), the validating webhook configuration that refuses anyone
     * but the platform a change or delete of the ConfigMap ({@code StationOwned}). Creates what is missing, replaces
     * what differs from what it declares (an edit or a delete by anyone is undone by the next call), leaves alone what
     * matches. Idempotent; safe on every resync.
     *
     * @throws ProviderException when the cluster's API failed or refused a write
     */
    void ensure(ClusterConnection cluster, VolumeMount mount, AdmissionEndpoints.Webhooks webhooks);

    /**
     * The volume as a cluster's nodes mount it and its users see it.
     *
     * @param label       {@code <cluster>-shared}
     * @param storageName the provider-side name (what the Storage page and a delete name)
     * @param path        where every node has it ({@code /mnt/shared})
     * @param sizeGiB     its capacity
     * @param server      the NFS server's address
     * @param export      the exported path on it ({@code /shared})
     */
    record VolumeMount(String label, String storageName, String path, int sizeGiB, String server, String export) {}
}
