package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.Cluster;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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

    /** The clusters of these ids that exist, as {@link #find} reads each; an adapter may read them at once. */
    default List<Cluster> findAll(Collection<String> clusterIds) {
        return clusterIds.stream().distinct().map(this::find).flatMap(Optional::stream).toList();
    }

    /**
     * Which of the names each tenant's clusters that are not deleted have (by tenant id), as
     * {@link #nameInUse} asks each; an adapter may ask at once. Tenants with none in use may be left out.
     */
    default Map<String, Set<String>> namesInUse(Map<String, ? extends Collection<String>> namesByTenant) {
        Map<String, Set<String>> used = new HashMap<>();
        namesByTenant.forEach((tenant, names) -> names.stream().filter(name -> nameInUse(tenant, name))
                .forEach(name -> used.computeIfAbsent(tenant, t -> new HashSet<>()).add(name)));
        return used;
    }

    /** {@link #countNotDeleted} of each tenant, by tenant id; an adapter may count them at once. */
    default Map<String, Integer> countNotDeleted(Collection<String> tenantIds) {
        Map<String, Integer> counts = new HashMap<>();
        tenantIds.forEach(t -> counts.put(t, countNotDeleted(t)));
        return counts;
    }

    /**
     * What a group of creates checks under its tenants' locks: the tenants that exist (and are locked), the names
     * in use ({@link #namesInUse}), those tenants' counts ({@link #countNotDeleted(Collection)}) and the clusters of
     * the asked ids that exist ({@link #findAll}).
     */
    record CreateChecks(Set<String> tenants, Map<String, Set<String>> namesInUse, Map<String, Integer> counts,
                        List<Cluster> existing) {}

    /**
     * Takes the lock {@link CatalogRepository#lockTenant} takes on each tenant of {@code namesByTenant}, in the order
     * of their ids (so two callers never wait for each other in a cycle), then reads {@link CreateChecks} for these
     * names (their tenants are the ones counted) and ids. Inside {@link Transactions#inTransaction} only. The reads
     * see every write committed before the locks were granted, so checks made on them stay exact until the
     * transaction ends. An adapter may send the locks and the reads at once: a group of creates is bound by its
     * round trips.
     */
    CreateChecks lockAndCheck(Map<String, ? extends Collection<String>> namesByTenant, Collection<String> clusterIds);

    /**
     * A cluster to insert, with what an adapter can make of it without the database made ahead
     * ({@link #prepareInsert}): in the caller's thread, so that a group's writer, which writes one group at a time, only
     * sends it.
     */
    interface PreparedInsert {
        Cluster cluster();
    }

    /** The cluster ready for {@link #insertAllPrepared}; by default the cluster as it is. */
    default PreparedInsert prepareInsert(Cluster cluster) {
        return () -> cluster;
    }

    /** {@link #insertAll} of clusters this repository prepared ({@link #prepareInsert}). */
    default void insertAllPrepared(List<? extends PreparedInsert> prepared) {
        insertAll(prepared.stream().map(PreparedInsert::cluster).toList());
    }

    /**
     * Stores a new cluster and its node pools. A second cluster with the same id, or with the name of
     * one of the tenant's clusters that is not deleted, is {@code CONFLICT} — the database's own
     * constraint, the last guard of the rules the caller already checked under the tenant's lock.
     */
    void insert(Cluster cluster);

    /** Stores new clusters as {@link #insert} stores each, in order; an adapter may send them at once. */
    default void insertAll(List<Cluster> clusters) {
        clusters.forEach(this::insert);
    }

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
     * Ids of clusters the reconciler should look at now: not {@code deleted}, whose
     * {@code progress.nextAttemptAt} is null or not after {@code now}, and whose lease is free or expired
     * at {@code now}; the longest waiting first, at most {@code limit}.
     */
    List<String> due(java.time.Instant now, int limit);

    /**
     * Takes the cluster's lease for {@code owner} until {@code until}, by one conditional update: only if
     * the lease is free, expired at {@code now}, or already {@code owner}'s. Returns whether it was taken.
     * Two replicas on one database never hold the same cluster's lease at once.
     */
    boolean claim(String clusterId, String owner, java.time.Instant now, java.time.Instant until);

    /** Gives the lease back if {@code owner} holds it. */
    void release(String clusterId, String owner);
}
