package com.bettercompute.application.port;

import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;

import java.util.List;
import java.util.Optional;

/** The operator's catalog: providers, accounts, pools and offers, tenants with their projects, networks and budgets. */
public interface CatalogRepository {

    /**
     * Writes the catalog's entries, inserting new ids and updating known ones (never duplicating).
     * Entries the file no longer names are left as they are. Principals and bindings go to
     * {@link AccessRepository#save}.
     */
    void save(Catalog catalog);

    Optional<Provider> provider(String id);

    Optional<ProviderAccount> account(String id);

    Optional<Pool> pool(String id);

    /** The tenant's offer of the pool, active or suspended. */
    Optional<Offer> offer(String poolId, String tenantId);

    Optional<Tenant> tenant(String id);

    /**
     * Takes the tenant's row lock until the transaction ends, so checks that count the tenant's clusters
     * (name uniqueness, the cluster quota) are exact under concurrent calls. Returns false when there is
     * no such tenant. Must be called inside {@link Transactions#inTransaction}.
     */
    boolean lockTenant(String id);

    Optional<Project> project(String id);

    Optional<Network> network(String id);

    List<Budget> budgets(String tenantId);
}
