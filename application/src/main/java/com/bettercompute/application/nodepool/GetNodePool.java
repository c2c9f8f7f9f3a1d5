package com.bettercompute.application.nodepool;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.NodePool;

/** {@code kubernetesNodePools.get}: one node pool, deleted or not. Decided as read on its cluster. */
public final class GetNodePool {
    private final ClusterLookup lookup;

    public GetNodePool(ClusterRepository clusters, Authorizer authorizer) {
        this.lookup = new ClusterLookup(clusters, authorizer);
    }

    public NodePool get(Caller caller, NodePoolRef ref) {
        return NodePools.find(lookup.require(caller, ref.cluster(), Action.READ), ref.nodePoolId());
    }
}
