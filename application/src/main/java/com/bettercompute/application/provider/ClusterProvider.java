package com.bettercompute.application.provider;

/**
 * The managed-Kubernetes provider (GKE), seen by the reconciler.
 *
 * <p>Every mutating call starts an operation at the provider and returns as soon as the provider
 * accepted it; it never waits for the operation to finish. The caller observes later with
 * {@link #observe}: {@link ClusterObservation#operationRunning()} says whether something is still
 * in flight and {@link ClusterObservation#operationError()} why the latest operation failed.
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
     * The cluster as the provider has it now. A missing cluster is {@link ClusterObservation#absent()},
     * not an error. A cluster of that name without our label is returned with a null
     * {@code clusterId}: the caller must not adopt it.
     */
    ClusterObservation observe(ClusterLocator at);

    /**
     * Starts creating a cluster. If a cluster of that name exists and carries our label with the
     * same cluster id, this adopts it and succeeds (whatever its state). If it exists without our
     * label (or with another id), throws {@link ProviderException.Kind#FOREIGN}. A version the provider
     * does not offer is {@link ProviderException.Kind#INVALID}.
     */
    void createCluster(ClusterSpec spec);

    /**
     * Starts one in-place change of the control plane. A version downgrade or a version not
     * offered is {@link ProviderException.Kind#INVALID}; a cluster busy with another operation is
     * {@link ProviderException.Kind#FAILED_PRECONDITION}; a missing cluster {@link ProviderException.Kind#NOT_FOUND}.
     */
    void updateCluster(ClusterLocator at, ClusterChange change);

    /** Starts deleting the cluster and its node pools. A cluster already gone (or going) is a success. */
    void deleteCluster(ClusterLocator at);

    /** Starts creating a node pool at the control plane's version. A pool of that name that exists is a success. */
    void createNodePool(ClusterLocator at, NodePoolSpec pool);

    /** Starts resizing a pool to {@code nodeCount} nodes per zone. */
    void resizeNodePool(ClusterLocator at, String pool, int nodeCount);

    /** Starts turning a pool's autoscaling on with these bounds, or off when {@code autoscaling} is null. */
    void setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling);

    /**
     * Starts replacing a pool's Kubernetes labels and taints, in place on its nodes (GKE's
     * {@code updateNodePool} with labels and taints). A missing pool is {@link ProviderException.Kind#NOT_FOUND};
     * a cluster busy with another operation {@link ProviderException.Kind#FAILED_PRECONDITION}.
     */
    void updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, java.util.Map<String, String> labels,
                                       java.util.List<Taint> taints);

    /** Starts deleting a node pool. A pool (or cluster) already gone is a success. */
    void deleteNodePool(ClusterLocator at, String pool);

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
