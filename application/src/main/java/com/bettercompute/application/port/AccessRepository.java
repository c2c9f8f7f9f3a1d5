package com.bettercompute.application.port;

import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.CatalogPrincipal;

import java.util.List;
import java.util.Optional;

/** Principals with their hashed API tokens, role bindings, and who owns which cluster. */
public interface AccessRepository {

    /**
     * Writes principals (by id: inserted or updated) and replaces each named principal's bindings with
     * the listed ones. Tokens arrive hashed (SHA-256 hex); plain tokens never reach this port.
     */
    void save(List<CatalogPrincipal> principals);

    /** The principal whose API token has this SHA-256 (hex, lower case). */
    Optional<Principal> principalByTokenHash(String tokenSha256);

    List<RoleBinding> bindings(String principalId);

    /** The principal that owns the cluster (its creator), while the cluster is not deleted. */
    Optional<String> owner(String clusterId);

    /** Records the owner of a new cluster. */
    void addOwner(String clusterId, String principalId);

    /** Removes the cluster's ownership row (when the cluster is deleted). Idempotent. */
    void removeOwner(String clusterId);
}
