package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;

/** {@code kubernetesClusters.get}: one cluster with its node pools, decided as read on the cluster. */
public final class GetCluster {
    private final ClusterLookup lookup;

    public GetCluster(ClusterRepository clusters, Authorizer authorizer) {
        this.lookup = new ClusterLookup(clusters, authorizer);
    }

    public Cluster get(Caller caller, ClusterRef ref) {
        return lookup.require(caller, ref, Action.READ);
    }
}
