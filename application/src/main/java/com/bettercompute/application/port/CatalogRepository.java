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

    /** The kinds of entries a load retires instead of removing: clusters may point at them. */
    enum Kind { PROVIDER, ACCOUNT, POOL, TENANT, PROJECT, NETWORK }

    /**
     * Makes the stored catalog the given one, inserting new ids and updating known ones (never duplicating).
     * Entries of a {@link Kind} it no longer names are kept but {@link #retired}; offers and budgets it no
     * longer names are removed (nothing points at them). A retired entry it names again is current again.
     * Reads ({@link #pool}, {@link #account}, ...) still find retired entries, so existing clusters keep
     * working. Principals and bindings go to {@link AccessRepository#save}.
     */
    void save(Catalog catalog);

    /** Whether the stored entry is retired: the catalog loaded last no longer names it. False for an unknown id. */
    boolean retired(Kind kind, String id);

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
