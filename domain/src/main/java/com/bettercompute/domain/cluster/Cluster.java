package com.bettercompute.domain.cluster;

import java.time.Instant;
import java.util.List;

/**
 * A tenant's Kubernetes cluster: what was asked (the spec fields), where it stands ({@code state},
 * {@code message}) and what the provider last reported ({@code kubernetesVersion},
 * {@code nodeVersion}, {@code endpoint}). {@code version} is the row's revision: 1 at create, +1 on
 * every change. {@code requestFingerprint} identifies the normalized create input, so a retry with the
 * same idempotency key can be told from a different request.
 */
public record Cluster(
        String id,
        String tenantId,
        String projectId,
        String poolId,
        String providerAccountId,
        String name,
        String description,
        ClusterMode mode,
        String location,
        String region,
        LocationType locationType,
        ReleaseChannel releaseChannel,
        String requestedVersion,
        String kubernetesVersion,
        String nodeVersion,
        String endpoint,
        List<String> authorizedNetworks,
        boolean privateNodes,
        String networkId,
        String subnetName,
        ClusterState state,
        String message,
        String providerName,
        String ownerId,
        String requestFingerprint,
        long version,
        Instant createdAt,
        Instant updatedAt,
        Instant readyAt,
        Instant deletedAt,
        List<NodePool> nodePools,
        Progress progress) {

    public Cluster {
        authorizedNetworks = List.copyOf(authorizedNetworks);
        nodePools = List.copyOf(nodePools);
        progress = progress == null ? Progress.NONE : progress;
    }

    /**
     * What the reconciler keeps between passes; not shown by the API.
     *
     * @param deleteRequestedAt  when the tenant asked to delete; kept through refusals until the cluster is gone
     * @param providerAcceptedAt when the provider first accepted the cluster (or we found it there): billing
     *                           starts here, and a cluster missing at the provider after it was deleted behind our back
     * @param pendingAction      the provider call about to be made, saved before making it; null when none
     * @param failures           consecutive failed attempts, for the back-off
     * @param nextAttemptAt      when the reconciler looks at the cluster next; null: as soon as it can
     * @param caCertificate      the cluster CA the provider reported (base64 PEM); public, not a secret
     */
    public record Progress(Instant deleteRequestedAt, Instant providerAcceptedAt, String pendingAction, int failures,
                           Instant nextAttemptAt, String caCertificate) {
        public static final Progress NONE = new Progress(null, null, null, 0, null, null);

        public Progress withNextAttemptAt(Instant at) {
            return new Progress(deleteRequestedAt, providerAcceptedAt, pendingAction, failures, at, caCertificate);
        }

        public Progress withDeleteRequestedAt(Instant at) {
            return new Progress(at, providerAcceptedAt, pendingAction, failures, nextAttemptAt, caCertificate);
        }
    }

    /** The tenant asked to delete it (it may be {@code error} meanwhile, if the provider refused). */
    public boolean deleteRequested() {
        return progress.deleteRequestedAt() != null;
    }

    public boolean deleted() {
        return state == ClusterState.DELETED;
    }

    /** A cluster being deleted or already deleted accepts no change. */
    public boolean goingAway() {
        return state == ClusterState.DELETING || state == ClusterState.DELETED || deleteRequested();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Copies a cluster with some fields changed; {@link #build()} does not bump {@code version}. */
    public static final class Builder {
        private String description;
        private String requestedVersion;
        private ReleaseChannel releaseChannel;
        private List<String> authorizedNetworks;
        private ClusterState state;
        private String message;
        private long version;
        private Instant updatedAt;
        private Instant deletedAt;
        private List<NodePool> nodePools;
        private String kubernetesVersion;
        private String nodeVersion;
        private String endpoint;
        private Instant readyAt;
        private Progress progress;
        private final Cluster from;

        private Builder(Cluster c) {
            from = c;
            description = c.description;
            requestedVersion = c.requestedVersion;
            releaseChannel = c.releaseChannel;
            authorizedNetworks = c.authorizedNetworks;
            state = c.state;
            message = c.message;
            version = c.version;
            updatedAt = c.updatedAt;
            deletedAt = c.deletedAt;
            nodePools = c.nodePools;
            kubernetesVersion = c.kubernetesVersion;
            nodeVersion = c.nodeVersion;
            endpoint = c.endpoint;
            readyAt = c.readyAt;
            progress = c.progress;
        }

        public Builder description(String v) { description = v; return this; }
        public Builder requestedVersion(String v) { requestedVersion = v; return this; }
        public Builder releaseChannel(ReleaseChannel v) { releaseChannel = v; return this; }
        public Builder authorizedNetworks(List<String> v) { authorizedNetworks = v; return this; }
        public Builder state(ClusterState v) { state = v; return this; }
        public Builder message(String v) { message = v; return this; }
        public Builder version(long v) { version = v; return this; }
        public Builder updatedAt(Instant v) { updatedAt = v; return this; }
        public Builder deletedAt(Instant v) { deletedAt = v; return this; }
        public Builder nodePools(List<NodePool> v) { nodePools = v; return this; }
        public Builder kubernetesVersion(String v) { kubernetesVersion = v; return this; }
        public Builder nodeVersion(String v) { nodeVersion = v; return this; }
        public Builder endpoint(String v) { endpoint = v; return this; }
        public Builder readyAt(Instant v) { readyAt = v; return this; }
        public Builder progress(Progress v) { progress = v; return this; }

        public Cluster build() {
            Cluster c = from;
            return new Cluster(c.id, c.tenantId, c.projectId, c.poolId, c.providerAccountId, c.name, description, c.mode,
                    c.location, c.region, c.locationType, releaseChannel, requestedVersion, kubernetesVersion,
                    nodeVersion, endpoint, authorizedNetworks, c.privateNodes, c.networkId, c.subnetName, state,
                    message, c.providerName, c.ownerId, c.requestFingerprint, version, c.createdAt, updatedAt,
                    readyAt, deletedAt, nodePools, progress);
        }
    }
}
