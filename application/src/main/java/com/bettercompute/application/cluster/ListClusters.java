package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;

import java.util.List;

/**
 * {@code kubernetesClusters.list}: decided as read on the tenant, then each cluster decided on its own,
 * so a binding narrowed by conditions shows only the clusters it reaches. Oldest first, at most 500.
 */
public final class ListClusters {
    public static final int MAX_ITEMS = 500;
    /** How many rows are read to find the allowed ones; a tenant holds far fewer (its quota is small). */
    static final int SCAN_LIMIT = 20_000;

    private final ClusterRepository clusters;
    private final Authorizer authorizer;

    public ListClusters(ClusterRepository clusters, Authorizer authorizer) {
        this.clusters = clusters;
        this.authorizer = authorizer;
    }

    public List<Cluster> list(Caller caller, ListClustersQuery q) {
        Authorizer.Decider decider = authorizer.forCaller(caller);
        decider.require(Action.READ, Resource.tenant(q.tenantId()));
        return clusters.list(new ClusterFilter(q.tenantId(), q.poolId(), q.projectId(), q.includeDeleted()), SCAN_LIMIT)
                .stream()
                .filter(c -> decider.allows(Action.READ, ClusterResources.of(c)))
                .limit(MAX_ITEMS)
                .toList();
    }
}
