package com.bettercompute.application.nodepool;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;

import java.util.List;

/** {@code kubernetesNodePools.list}: a cluster's node pools, oldest first; deleted ones only when asked. Decided as read on the cluster. */
public final class ListNodePools {
    private final ClusterLookup lookup;

    public ListNodePools(ClusterRepository clusters, Authorizer authorizer) {
        this.lookup = new ClusterLookup(clusters, authorizer);
    }

    public List<NodePool> list(Caller caller, ListNodePoolsQuery query) {
        // The repository keeps a cluster's pools oldest first.
        return lookup.require(caller, query.cluster(), Action.READ).nodePools().stream()
                .filter(p -> query.includeDeleted() || p.state() != ClusterState.DELETED)
                .toList();
    }
}
