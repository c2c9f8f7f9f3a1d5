package com.bettercompute.application.port;

import com.bettercompute.domain.loadbalancer.LoadBalancer;

import java.util.List;
import java.util.Optional;

/**
 * The platform's load balancers, one row per (cluster, Service uid). Writes take part in the caller's
 * {@link Transactions#inTransaction} when there is one.
 */
public interface LoadBalancerRepository {

    Optional<LoadBalancer> find(String clusterId, String serviceUid);

    /** The cluster's rows, oldest first. */
    List<LoadBalancer> ofCluster(String clusterId);

    /** Every row, by cluster then oldest first: the operator's view. */
    List<LoadBalancer> all();

    /** The clusters that have rows. */
    List<String> clusters();

    /** Rows of the cluster that may hold an address ({@link com.bettercompute.domain.loadbalancer.LoadBalancerState#holds()}). */
    int holdingInCluster(String clusterId);

    /** Rows of every cluster in the region that may hold an address. */
    int holdingInRegion(String region);

    /**
     * Serializes the claims of room in a region until the transaction ends, so two claims never both take the
     * last place (a no-op where one process owns the database). Call inside {@link Transactions#inTransaction}.
     */
    void lockRegion(String region);

    /** Inserts a new row (its version is 0). A row of the same (cluster, Service uid) is {@code CONFLICT}. */
    void insert(LoadBalancer row);

    /** Replaces the row if it is still at {@code expectedVersion} (it is then one more); false when it is not. */
    boolean update(LoadBalancer row, long expectedVersion);

    /** Deletes the row if it is still at {@code expectedVersion}; false when it is not (or is gone). */
    boolean delete(String clusterId, String serviceUid, long expectedVersion);
}
