package com.bettercompute.application.port;

import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.CatalogPrincipal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Principals with their hashed API tokens, role bindings, and who owns which cluster. */
public interface AccessRepository {

    /**
     * Makes the stored principals exactly the listed ones (the catalog's complete list): each is inserted or
     * updated by id with its bindings replaced by the listed ones; a principal not listed is removed with its
     * token, its bindings and its ownership of clusters, so its token names nobody from the next call on.
     * Tokens arrive hashed (SHA-256 hex); plain tokens never reach this port.
     */
    void save(List<CatalogPrincipal> principals);

    /** Ends the ownership of every cluster whose tenant is not listed (a tenant the catalog no longer names). */
    void removeOwnersOutside(Set<String> tenantIds);

    /** The principal whose API token has this SHA-256 (hex, lower case). */
    Optional<Principal> principalByTokenHash(String tokenSha256);

    List<RoleBinding> bindings(String principalId);

    /** The principal that owns the cluster (its creator), while the cluster is not deleted. */
    Optional<String> owner(String clusterId);

    /** The ids of the clusters the principal owns (created, and not deleted since). */
    Set<String> clustersOwnedBy(String principalId);

    /** Records the owner of a new cluster. */
    void addOwner(String clusterId, String principalId);

    /** Records the owners of new clusters (cluster id to principal id), as {@link #addOwner} each. */
    default void addOwners(Map<String, String> ownerByCluster) {
        ownerByCluster.forEach(this::addOwner);
    }

    /** Removes the cluster's ownership row (when the cluster is deleted). Idempotent. */
    void removeOwner(String clusterId);
}
