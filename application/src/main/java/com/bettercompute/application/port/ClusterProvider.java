package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;

import java.util.List;
import java.util.Map;

/**
 * The managed-Kubernetes provider (GKE), seen by the reconciler.
 *
 * <p>Every mutating call starts an operation at the provider and returns as soon as the provider
 * accepted it, with the name of the operation it started (null when it started none: what was asked
 * is there already, or going); it never waits for the operation to finish. The caller observes later
 * with {@link #observe}, whose statuses show work in flight ({@link ClusterObservation#busy()}), and
 * asks how its own operation ended with {@link #operation} — one call each, never a list of the
 * location's operations but in the rare case that the caller lost the operation's name.
 *
 * <p>Every call is idempotent, so a reconciler may repeat its last action after a crash: creating
 * what exists already (and is ours) and deleting what is gone are successes.
 *
 * <p>A Standard cluster is built in steps, as Terraform's {@code remove_default_node_pool} does,
 * because the provider insists on a node pool at creation: {@link #createCluster} creates the
 * control plane with one small temporary pool named {@link #INITIAL_NODE_POOL}; once the cluster
 * runs, the caller creates its pools with {@link #createNodePool} (one at a time: the provider runs
 * one operation per cluster) and then deletes the temporary pool with {@link #deleteNodePool}.
 * An Autopilot cluster has no pools to manage.
 *
 * <p>Failures are {@link ProviderException}s, with a {@link ProviderException.Kind}.
 */
public interface ClusterProvider {

    /** The temporary node pool a Standard cluster is created with; delete it once your pools exist. */
    String INITIAL_NODE_POOL = "bc-initial";

    /**
     * The cluster as the provider has it now (one read of the cluster). A missing cluster is
     * {@link ClusterObservation#absent()}, not an error. A cluster of that name without our label is
     * returned with a null {@code clusterId}: the caller must not adopt it.
     */
    ClusterObservation observe(ClusterLocator at);

    /**
     * How an operation on this cluster stands. {@code name} is what a mutating call returned (one read of
     * that operation). A null {@code name} means the caller made a call but lost its answer (a crash between
     * the call and saving it): then the cluster's latest operation counts, found by listing the location's
     * operations — costly, for that rare case only; none at all is {@link OperationStatus#SUCCEEDED}. An
     * operation the provider no longer knows (it forgets old ones) is also {@link OperationStatus#SUCCEEDED}:
     * whether what it did is there, the cluster shows.
     */
    OperationStatus operation(ClusterLocator at, String name);

    /**
     * Starts creating a cluster. If a cluster of that name exists and carries our label with the
     * same cluster id, this adopts it and succeeds (whatever its state; no operation). If it exists without our
     * label (or with another id), throws {@link ProviderException.Kind#FOREIGN}. A version the provider
     * does not offer is {@link ProviderException.Kind#INVALID}. A create with {@link ClusterSpec#identityService()} that the
     * provider refuses because of Identity Service for GKE (not offered to the project's organization, or on Autopilot)
     * is {@link ProviderException.Kind#IDENTITY_SERVICE_REFUSED}, with the provider's reason; nothing was created.
     */
    String createCluster(ClusterSpec spec);

    /**
     * Starts one in-place change of the control plane. A version downgrade, a version not
     * offered, or Identity Service asked for on an Autopilot cluster is {@link ProviderException.Kind#INVALID}; a cluster busy with another operation is
     * {@link ProviderException.Kind#FAILED_PRECONDITION}; a missing cluster {@link ProviderException.Kind#NOT_FOUND}.
     */
    String updateCluster(ClusterLocator at, ClusterChange change);

    /**
     * Starts deleting the cluster and its node pools. A cluster already gone (or going) is a success (no
     * operation). One without our label is {@link ProviderException.Kind#FOREIGN}, and is left alone.
     */
    String deleteCluster(ClusterLocator at);

    /** Starts creating a node pool at the control plane's version. A pool of that name that exists is a success (no operation). */
    String createNodePool(ClusterLocator at, NodePoolSpec pool);

    /** Starts resizing a pool to {@code nodeCount} nodes per zone. */
    String resizeNodePool(ClusterLocator at, String pool, int nodeCount);

    /** Starts turning a pool's autoscaling on with these bounds, or off when {@code autoscaling} is null. */
    String setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling);

    /**
     * Starts replacing a pool's Kubernetes labels and taints, in place on its nodes (GKE's
     * {@code updateNodePool} with labels and taints). A missing pool is {@link ProviderException.Kind#NOT_FOUND};
     * a cluster busy with another operation {@link ProviderException.Kind#FAILED_PRECONDITION}.
     */
    String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, Map<String, String> labels, List<Taint> taints);

    /** Starts deleting a node pool. A pool (or cluster) already gone, or going, is a success (no operation). */
    String deleteNodePool(ClusterLocator at, String pool);

    /** The versions the provider offers in a location (a zone or a region) of a project. */
    ServerConfig serverConfig(String project, String location);

    /**
     * A bearer token with which the platform reaches the Kubernetes API of this provider's clusters: on
     * GKE an OAuth access token of the account's credentials, on the simulator the simulated API's own.
     * A secret: callers never store or log it, and may ask again for every call (it is cached and
     * refreshed here). A provider that gives none throws {@link ProviderException.Kind#PERMISSION_DENIED}.
     */
    default String platformAccessToken() {
        throw new ProviderException(ProviderException.Kind.PERMISSION_DENIED,
                "This provider gives no credential for its clusters' Kubernetes APIs.");
    }
}
