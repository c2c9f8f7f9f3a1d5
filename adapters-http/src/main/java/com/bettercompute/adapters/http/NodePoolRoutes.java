package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.Views.NodePoolList;
import com.bettercompute.adapters.http.Views.NodePoolView;

/** {@code POST /api/compute/kubernetesNodePools/<method>}: a cluster's node pools, one at a time. */
final class NodePoolRoutes {
    static final String BASE = "/api/compute/kubernetesNodePools/";

    private NodePoolRoutes() {}

    static void install(Router router, NodePoolUseCases np) {
        router.post(BASE + "create", "Add a node pool to a cluster (idempotent by idempotencyKey)", NodePoolRequests.CreateNodePool.BODY,
                NodePoolView.class, (caller, command) -> NodePoolView.of(np.createNodePool().create(caller, command)));
        router.post(BASE + "list", "List a cluster's node pools", NodePoolRequests.ListNodePools.BODY,
                NodePoolList.class, (caller, query) -> NodePoolList.of(np.listNodePools().list(caller, query)));
        router.post(BASE + "get", "Read one node pool", NodePoolRequests.OneNodePool.BODY,
                NodePoolView.class, (caller, ref) -> NodePoolView.of(np.getNodePool().get(caller, ref)));
        router.post(BASE + "update", "Change a node pool's size, autoscaling, labels or taints", NodePoolRequests.UpdateNodePool.BODY,
                NodePoolView.class, (caller, command) -> NodePoolView.of(np.updateNodePool().update(caller, command)));
        router.post(BASE + "delete", "Delete a node pool", NodePoolRequests.OneNodePool.BODY,
                NodePoolView.class, (caller, ref) -> NodePoolView.of(np.deleteNodePool().delete(caller, ref)));
    }
}
