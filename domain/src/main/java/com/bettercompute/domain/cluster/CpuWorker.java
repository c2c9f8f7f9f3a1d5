package com.bettercompute.domain.cluster;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.util.List;
import java.util.Map;

/**
 * The CPU worker every Standard cluster is created with: one small CPU-only node with the {@code cpu}
 * role, no GPUs and no taints, outside the market, so pods that tolerate nothing (queues, controllers,
 * data preparation) have somewhere to run while GPU jobs wait. It is a node pool of the platform's
 * (its name has the reserved {@code bc-} prefix), listed with the cluster's pools; the node pools API
 * may not resize, change or delete it, and it goes with its cluster. It counts neither towards the
 * cluster's node pool limit nor as the pool a Standard cluster must keep.
 *
 * <p>Its {@link #ROLE_LABEL} is not in the pool's node config: a kubelet may not give itself a
 * {@code node-role.kubernetes.io/*} label, so the platform labels the pool's nodes inside the cluster,
 * finding them by the node pool label GKE gives every node ({@code cloud.google.com/gke-nodepool: bc-cpu-worker}).
 */
public final class CpuWorker {
    private CpuWorker() {}

    public static final String NAME = "bc-cpu-worker";
    public static final String MACHINE_TYPE = "e2-standard-4";
    /** The node role label, as {@code kubectl get nodes} shows roles; set on the nodes by the platform, not by GKE. */
    public static final String ROLE_LABEL = "node-role.kubernetes.io/cpu";

    /**
     * The CPU worker's pool: one node in {@code zones} (one zone: a regional cluster's pool would get a node
     * per zone otherwise; empty: the cluster's own zone).
     */
    public static NodePoolSpec spec(List<String> zones) {
        return new NodePoolSpec(NAME, MACHINE_TYPE, 1, null, NodePoolSpec.DEFAULT_DISK_GIB, NodePoolSpec.DEFAULT_DISK_TYPE, false, null,
                zones, Map.of(), List.of());
    }

    public static boolean is(NodePoolSpec spec) {
        return NAME.equals(spec.name());
    }

    public static boolean is(NodePool pool) {
        return is(pool.spec());
    }

    /** The node pools API's answer to a change of the CPU worker: it is the platform's, fixed at one node. */
    public static DomainException refused(NodePool pool, String change) {
        return new DomainException(ErrorCode.INVALID_STATE,
                "Node pool " + pool.id() + " is the cluster's CPU worker: it is the platform's, one node, and cannot be " + change
                        + "; it goes with the cluster.",
                Map.of("field", "nodePoolId", "reason", "cpu-worker", "nodePoolId", pool.id()));
    }
}
