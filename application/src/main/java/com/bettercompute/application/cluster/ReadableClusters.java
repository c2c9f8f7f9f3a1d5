package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Which of a tenant's clusters a caller may read, decided for each cluster exactly as {@code get} decides
 * it, for reads about clusters that are not the clusters themselves (their events, their usage). The
 * caller's bindings and ownership are read once; the tenant's clusters once, and only when the bindings
 * alone do not reach every cluster of the tenant (a binding narrowed by conditions, a cluster binding,
 * ownership).
 */
public final class ReadableClusters {
    private final ClusterRepository clusters;
    private final Authorizer authorizer;

    public ReadableClusters(ClusterRepository clusters, Authorizer authorizer) {
        this.clusters = clusters;
        this.authorizer = authorizer;
    }

    /**
     * {@code ACCESS_DENIED} unless the caller may read the tenant; then whether it may read the cluster of
     * each id. An id that is not one of the tenant's clusters is decided as {@code get} decides a cluster it
     * does not find: only a binding on the whole tenant without conditions reaches it.
     */
    public Predicate<String> of(Caller caller, String tenantId) {
        Authorizer.Decider decider = authorizer.forCaller(caller);
        decider.require(Action.READ, Resource.tenant(tenantId));
        Resource unknown = ClusterResources.unknown(tenantId);
        if (decider.allows(Action.READ, unknown)) {
            return id -> true;
        }
        Map<String, Resource> resources = new HashMap<>();
        for (Cluster c : clusters.list(new ClusterFilter(tenantId, null, null, true), ListClusters.SCAN_LIMIT)) {
            resources.put(c.id(), ClusterResources.of(c));
        }
        Map<String, Boolean> decided = new HashMap<>();
        return id -> decided.computeIfAbsent(id, k -> decider.allows(Action.READ, resources.getOrDefault(k, unknown)));
    }
}
