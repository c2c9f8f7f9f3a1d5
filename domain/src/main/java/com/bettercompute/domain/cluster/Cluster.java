package com.bettercompute.domain.cluster;

import java.time.Instant;
import java.util.List;

/**
 * A tenant's Kubernetes cluster: what was asked (the spec fields), where it stands ({@code state},
 * {@code message}: why it is {@code error}, or on a {@code ready} cluster — and on one coming up — what the provider
 * refused to turn on for it)
 * and what the provider last reported ({@code kubernetesVersion},
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
     * @param operation          the provider's name of the operation that {@code pendingAction} started, saved once the
     *                           provider accepted the call; null while unknown (not accepted yet, or a crash came between
     *                           the call and saving its answer)
     * @param identityServiceRefusedAt when the provider last refused to turn Identity Service for GKE on (or its
     *                           operation failed); null once the provider has it on, or it was never refused. It is
     *                           asked again only a long while after this.
     */
    public record Progress(Instant deleteRequestedAt, Instant providerAcceptedAt, String pendingAction, int failures,
                           Instant nextAttemptAt, String caCertificate, String operation, Instant identityServiceRefusedAt) {
        public static final Progress NONE = new Progress(null, null, null, 0, null, null, null, null);

        /** Without a refusal of Identity Service. */
        public Progress(Instant deleteRequestedAt, Instant providerAcceptedAt, String pendingAction, int failures,
                        Instant nextAttemptAt, String caCertificate, String operation) {
            this(deleteRequestedAt, providerAcceptedAt, pendingAction, failures, nextAttemptAt, caCertificate, operation, null);
        }

        /** Without an operation name (rows written before operations were remembered). */
        public Progress(Instant deleteRequestedAt, Instant providerAcceptedAt, String pendingAction, int failures,
                        Instant nextAttemptAt, String caCertificate) {
            this(deleteRequestedAt, providerAcceptedAt, pendingAction, failures, nextAttemptAt, caCertificate, null);
        }

        public Progress withNextAttemptAt(Instant at) {
            return new Progress(deleteRequestedAt, providerAcceptedAt, pendingAction, failures, at, caCertificate, operation, identityServiceRefusedAt);
        }

        public Progress withDeleteRequestedAt(Instant at) {
            return new Progress(at, providerAcceptedAt, pendingAction, failures, nextAttemptAt, caCertificate, operation, identityServiceRefusedAt);
        }

        /** The provider was seen to have the cluster: billing starts now unless it started before. */
        public Progress seenAtProvider(Instant now, String ca) {
            return new Progress(deleteRequestedAt, providerAcceptedAt == null ? now : providerAcceptedAt, pendingAction, failures,
                    nextAttemptAt, ca == null ? caCertificate : ca, operation, identityServiceRefusedAt);
        }

        /** A call is about to be made: its label is the intent, and no operation of it is known yet. */
        public Progress intending(String action) {
            return new Progress(deleteRequestedAt, providerAcceptedAt, action, failures, nextAttemptAt, caCertificate, null, identityServiceRefusedAt);
        }

        /** The provider accepted the intended call and started {@code op} (null: nothing to wait for). */
        public Progress started(String op) {
            return new Progress(deleteRequestedAt, providerAcceptedAt, pendingAction, failures, nextAttemptAt, caCertificate, op, identityServiceRefusedAt);
        }

        /** The provider refused the intended call: nothing is pending, one more failure counts for the back-off. */
        public Progress failedAttempt() {
            return new Progress(deleteRequestedAt, providerAcceptedAt, null, failures + 1, nextAttemptAt, caCertificate, null, identityServiceRefusedAt);
        }

        /** Everything asked is in place: nothing pending, no failures. */
        public Progress settled() {
            return new Progress(deleteRequestedAt, providerAcceptedAt, null, 0, nextAttemptAt, caCertificate, null, identityServiceRefusedAt);
        }

        /** The provider refused to turn Identity Service on at {@code at}: nothing is pending, and no failure counts. */
        public Progress identityServiceRefused(Instant at) {
            return new Progress(deleteRequestedAt, providerAcceptedAt, null, 0, nextAttemptAt, caCertificate, null, at);
        }

        /** The provider has Identity Service on: no refusal stands. */
        public Progress identityServiceOn() {
            return new Progress(deleteRequestedAt, providerAcceptedAt, pendingAction, failures, nextAttemptAt, caCertificate, operation, null);
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

    // ------------------------------------------------------------------ the state machine
    // Every change of state is one of these named transitions; none bumps the revision by itself
    // except those of the API calls (the tenant's requests), which always do.

    /**
     * The tenant changed what it asks (a version, channel, networks, a node pool): a new revision, looked at
     * at once; a {@code ready} or failed cluster goes {@code updating} when the change is for the provider.
     * One not at the provider yet keeps its state: it will be created with the new values.
     */
    public Cluster changeRequested(boolean changesProvider, Instant now) {
        Builder b = toBuilder().version(version + 1).updatedAt(now).progress(progress.withNextAttemptAt(null));
        if (changesProvider && (state == ClusterState.READY || state == ClusterState.ERROR)) {
            b.state(ClusterState.UPDATING).message(null);
        }
        return b.build();
    }

    /**
     * The tenant asked to delete: the cluster and its pools go {@code deleting}, a new revision, looked at at once.
     * Asked again after the provider refused, it keeps the first request's time (it is the same deletion).
     */
    public Cluster startDeleting(Instant now) {
        List<NodePool> pools = nodePools.stream()
                .map(p -> p.state() == ClusterState.DELETED ? p : p.withState(ClusterState.DELETING, null, now)).toList();
        Progress p = (deleteRequested() ? progress : progress.withDeleteRequestedAt(now)).withNextAttemptAt(null);
        return toBuilder().state(ClusterState.DELETING).message(null).nodePools(pools).progress(p)
                .version(version + 1).updatedAt(now).build();
    }

    /**
     * The provider is working on it: {@code provisioning} until it was first ready, {@code updating} after. A cluster
     * coming up keeps the note of an Identity Service for GKE its create was refused (it was created without): it says
     * what the cluster will lack once ready.
     */
    public Cluster converging() {
        boolean keepsNote = readyAt == null && state != ClusterState.ERROR && progress.identityServiceRefusedAt() != null;
        return toBuilder().state(readyAt == null ? ClusterState.PROVISIONING : ClusterState.UPDATING).message(keepsNote ? message : null).build();
    }

    /** The provider failed or refused, or the cluster cannot be reconciled: {@code error} with why. */
    public Cluster failed(String why) {
        return toBuilder().state(ClusterState.ERROR).message(why).build();
    }

    /** The provider is deleting it (a retried delete it accepted, or one it was already doing). */
    public Cluster deleting() {
        return toBuilder().state(ClusterState.DELETING).message(null).build();
    }

    /** The control plane and every live pool are as asked: {@code ready}; the first time also sets {@code readyAt}. */
    public Cluster becameReady(Instant now) {
        List<NodePool> pools = nodePools.stream()
                .map(p -> p.state() == ClusterState.READY || !p.live() ? p : p.withState(ClusterState.READY, null, now)).toList();
        return toBuilder().state(ClusterState.READY).message(null).readyAt(readyAt == null ? now : readyAt).nodePools(pools)
                .progress(progress.settled()).build();
    }

    /**
     * {@link #becameReady} though the provider refused something optional the platform asked for it (Identity Service
     * for GKE): its workloads are unaffected, and {@code note} says what was refused and why.
     */
    public Cluster readyWithNote(String note, Instant now) {
        return becameReady(now).toBuilder().message(note).build();
    }

    /** Gone at the provider: {@code deleted}, with every pool; kept for the record, never looked at again. */
    public Cluster deleted(Instant now) {
        List<NodePool> pools = nodePools.stream()
                .map(p -> p.state() == ClusterState.DELETED ? p : p.withState(ClusterState.DELETED, null, now)).toList();
        Progress p = new Progress(progress.deleteRequestedAt(), progress.providerAcceptedAt(), null, 0, null,
                progress.caCertificate(), null);
        return toBuilder().state(ClusterState.DELETED).message(null).nodePools(pools).deletedAt(now).progress(p).build();
    }

    /** The live pool of that name moved to {@code newState} (a no-op when it is there already with that message). */
    public Cluster withPoolState(String poolName, ClusterState newState, String why, Instant now) {
        return toBuilder().nodePools(nodePools.stream()
                .map(p -> p.live() && p.spec().name().equals(poolName)
                        && (p.state() != newState || !java.util.Objects.equals(p.message(), why))
                        ? p.withState(newState, why, now) : p)
                .toList()).build();
    }

    /**
     * {@code pool} put in place of the pool of the same id (or added last), as the tenant changed it: the
     * cluster's {@link #changeRequested} follows.
     */
    public Cluster withPoolChanged(NodePool pool, boolean changesProvider, Instant now) {
        List<NodePool> pools = new java.util.ArrayList<>();
        boolean replaced = false;
        for (NodePool p : nodePools) {
            replaced |= p.id().equals(pool.id());
            pools.add(p.id().equals(pool.id()) ? pool : p);
        }
        if (!replaced) {
            pools.add(pool);
        }
        return toBuilder().nodePools(pools).build().changeRequested(changesProvider, now);
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
