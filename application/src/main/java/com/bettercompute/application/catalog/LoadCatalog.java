package com.bettercompute.application.catalog;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Tenant;

import java.util.stream.Collectors;

/**
 * Makes the database the catalog's, in one transaction: loading the same file again updates, never
 * duplicates, and a file that stops naming something takes it away at once. A principal it no longer
 * names is removed (its token names nobody from the next call), a binding it no longer lists is gone,
 * and the clusters of a tenant it no longer names lose their owners. Providers, accounts, pools,
 * tenants, projects and networks it no longer names are retired, not removed: nothing new is created on
 * them, while the clusters that point at them keep working (see {@link CatalogRepository#save}).
 */
public final class LoadCatalog {
    private final Transactions tx;
    private final CatalogRepository catalog;
    private final AccessRepository access;

    public LoadCatalog(Transactions tx, CatalogRepository catalog, AccessRepository access) {
        this.tx = tx;
        this.catalog = catalog;
        this.access = access;
    }

    public void load(Catalog c) {
        tx.inTransaction(() -> {
            catalog.save(c);
            access.save(c.principals());
            access.removeOwnersOutside(c.tenants().stream().map(Tenant::id).collect(Collectors.toSet()));
            return null;
        });
    }
}
