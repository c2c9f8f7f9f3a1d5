package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.DomainEvent;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Clusters with their node pools. */
public interface ClusterRepository {

    /** The cluster with its node pools (oldest first), whatever its tenant or state. */
    Optional<Cluster> find(String clusterId);

    /** The filter's clusters, oldest first (then by id), at most {@code limit}. */
    List<Cluster> list(ClusterFilter filter, int limit);

    /** How many of the tenant's clusters are not deleted (one being deleted counts). */
    int countNotDeleted(String tenantId);

    /** Whether a cluster of the tenant that is not deleted has this name. */
    boolean nameInUse(String tenantId, String name);

    /**
     * A new cluster and what is written with it as one unit: its node pools (in {@code cluster}), its owner (the
     * caller that asked for it), its event, and the most clusters that are not deleted its tenant may have.
     */
    record NewCluster(Cluster cluster, String ownerId, DomainEvent event, int maxClusters) {
        public NewCluster {
            Objects.requireNonNull(cluster, "cluster");
            Objects.requireNonNull(ownerId, "ownerId");
            Objects.requireNonNull(event, "event");
        }
    }

    /** What {@link #insert} made of a {@link NewCluster}: stored, or why nothing was written. */
    sealed interface Insertion {
        /** Stored and committed: the cluster, its node pools, its owner, its event and its tenant's count. */
        record Inserted(Cluster cluster) implements Insertion {}

        /** Nothing written: a cluster of this id is stored (a retry of the same create), as it is now. */
        record AlreadyStored(Cluster cluster) implements Insertion {}

        /** Nothing written: the catalog names no such tenant, so there is no lock to take. */
        record NoTenant() implements Insertion {}

        /** Nothing written: a cluster of the tenant that is not deleted has this name. */
        record NameInUse() implements Insertion {}

        /** Nothing written: the tenant has {@code limit} clusters that are not deleted, its limit. */
        record OverQuota(int limit) implements Insertion {}
    }

    /**
     * Inserts a new cluster: its row and its node pools' rows, its owner, its event in the outbox, and one more on its
     * tenant's count of clusters not deleted, all or nothing. The checks are made in this order under the tenant's lock
     * ({@link CatalogRepository#lockTenant}'s), so they are exact however many calls race: the tenant exists; no cluster
     * of this id is stored (else {@link Insertion.AlreadyStored}, nothing else checked); the name is free among the
     * tenant's clusters that are not deleted; the tenant is below {@code maxClusters}.
     *
     * <p>Outside a transaction it returns only once its writes are committed, so nothing is answered before it is
     * durable (an adapter may commit the inserts of concurrent calls together). Inside
     * {@link Transactions#inTransaction} it takes part in the caller's transaction instead. Not idempotent by itself:
     * a second call with the same id answers {@link Insertion.AlreadyStored}. A {@code CONFLICT} is thrown only when the
     * database's own constraints (unique id, unique name among clusters not deleted) refuse what the checks let
     * through; anything else failing is {@code INTERNAL}, and then nothing was written.
     */
    Insertion insert(NewCluster cluster);

    /**
     * Replaces the cluster's row and its node pools' rows with these values, if the stored row is still at
     * {@code expectedVersion}. Returns false (and changes nothing) when someone else changed it first.
     */
    boolean update(Cluster cluster, long expectedVersion);

    /**
     * As {@link #update}, for the API's writes of what the tenant asked: the reconciler's bookkeeping in
     * the stored row ({@code providerAcceptedAt}, {@code pendingAction}, {@code failures}, {@code caCertificate})
     * is kept as it is, since a pass may have saved it without a new {@code version} after the caller
     * read the row.
     */
    boolean updateRequest(Cluster cluster, long expectedVersion);

    /**
     * Ids of clusters replica {@code owner} should look at now: not {@code deleted}, whose
     * {@code progress.nextAttemptAt} is null or not after {@code now}, and whose lease is free, expired at
     * {@code now}, or {@code owner}'s own — a replica killed in a pass and started again under the same id takes
     * its clusters back at once instead of waiting for its old leases to expire (its own passes in flight it
     * tells apart itself); the longest waiting first, at most {@code limit}.
     */
    List<String> due(java.time.Instant now, String owner, int limit);

    /**
     * Takes the cluster's lease for {@code owner} until {@code until}, by one conditional update: only if
     * the lease is free, expired at {@code now}, or already {@code owner}'s. Returns whether it was taken.
     * Two replicas on one database never hold the same cluster's lease at once.
     */
    boolean claim(String clusterId, String owner, java.time.Instant now, java.time.Instant until);

    /** Gives the lease back if {@code owner} holds it. */
    void release(String clusterId, String owner);
}
