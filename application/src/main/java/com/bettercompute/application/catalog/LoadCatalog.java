package com.bettercompute.application.catalog;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.catalog.Catalog;

/** Writes a catalog into the database in one transaction: loading the same file again updates, never duplicates. */
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
            return null;
        });
    }
}
