package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ServerConfig;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;

/**
 * {@code kubernetesClusters.versions}: the Kubernetes versions the provider offers in a location of a
 * pool the tenant can see. The pool and location are checked as for {@code create}; decided as read on
 * the tenant. Bootstrap puts a short cache in front of the provider's answer.
 */
public final class ListVersions {
    private final ClusterPlacement placement;
    private final Authorizer authorizer;
    private final ClusterProviders providers;

    public ListVersions(CatalogRepository catalog, Authorizer authorizer, ClusterProviders providers) {
        this.placement = new ClusterPlacement(catalog);
        this.authorizer = authorizer;
        this.providers = providers;
    }

    public ServerConfig versions(Caller caller, VersionsQuery q) {
        ClusterPlacement.VisiblePool pool = placement.pool(q.tenantId(), q.poolId());
        ClusterPlacement.location(pool.account(), q.location());
        authorizer.require(caller, Action.READ, Resource.tenant(q.tenantId()));
        try {
            return providers.forAccount(pool.account()).serverConfig(pool.account().cloudProject(), q.location());
        } catch (ProviderException e) {
            throw e.toDomainException();
        }
    }
}
