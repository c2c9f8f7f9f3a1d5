package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;

import java.util.Map;
import java.util.Optional;

/**
 * Finds a tenant's cluster for a caller: the decision first ({@code ACCESS_DENIED}), then
 * {@code NOT_FOUND} — so a cluster of another tenant is refused by the decision before it could be told
 * apart from one that does not exist.
 */
public final class ClusterLookup {
    private final ClusterRepository clusters;
    private final Authorizer authorizer;

    public ClusterLookup(ClusterRepository clusters, Authorizer authorizer) {
        this.clusters = clusters;
        this.authorizer = authorizer;
    }

    public Cluster require(Caller caller, ClusterRef ref, Action action) {
        Optional<Cluster> found = clusters.find(ref.clusterId()).filter(c -> c.tenantId().equals(ref.tenantId()));
        authorizer.require(caller, action, found.map(ClusterResources::of)
                .orElseGet(() -> ClusterResources.unknown(ref.tenantId())));
        return found.orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND,
                "No cluster " + ref.clusterId() + " in tenant " + ref.tenantId() + ".", Map.of("clusterId", ref.clusterId())));
    }
}
