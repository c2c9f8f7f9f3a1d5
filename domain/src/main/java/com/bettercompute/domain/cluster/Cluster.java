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
        List<NodePool> nodePools) {

    public Cluster {
        authorizedNetworks = List.copyOf(authorizedNetworks);
        nodePools = List.copyOf(nodePools);
    }

    public boolean deleted() {
        return state == ClusterState.DELETED;
    }

    /** A cluster being deleted or already deleted accepts no change. */
    public boolean goingAway() {
        return state == ClusterState.DELETING || state == ClusterState.DELETED;
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

        public Cluster build() {
            Cluster c = from;
            return new Cluster(c.id, c.tenantId, c.projectId, c.poolId, c.providerAccountId, c.name, description, c.mode,
                    c.location, c.region, c.locationType, releaseChannel, requestedVersion, c.kubernetesVersion,
                    c.nodeVersion, c.endpoint, authorizedNetworks, c.privateNodes, c.networkId, c.subnetName, state,
                    message, c.providerName, c.ownerId, c.requestFingerprint, version, c.createdAt, updatedAt,
                    c.readyAt, deletedAt, nodePools);
        }
    }
}
