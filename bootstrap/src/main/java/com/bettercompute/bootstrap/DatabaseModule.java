package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.market.MarketCallers;

import java.time.Duration;

/**
 * What every feature reads and writes: the database, the changes other replicas make to it (heard on PostgreSQL),
 * and the catalog loaded into it, read through one cache by every use case.
 *
 * @param db         the database
 * @param cache      the catalog and the principals, as every use case reads them
 * @param authorizer who may do what, over the cache
 */
record DatabaseModule(Database db, CatalogCache cache, Authorizer authorizer) {
    /** How long a replica may act on a catalog another replica has since loaded (its own load is seen at once). */
    static final Duration CATALOG_TTL = Duration.ofSeconds(5);

    /** Opens the database and loads {@code catalog} into it (the load empties the cache). */
    static DatabaseModule start(ServerConfig config, ServerCatalog catalog, Closer closer) {
        Database db = closer.add("database", Database.open(config.db(), null, null, CaffeineJdbiCaches::new));
        // on PostgreSQL: hears the other replicas' market saves and cluster writes (what is kept in memory)
        db.newChangeListener().ifPresent(l -> closer.add("changes", ChangeListening.start(l, "db-changes")));
        CatalogCache cache = new CatalogCache(db.catalog(), db.access(), CATALOG_TTL);
        new LoadCatalog(db.transactions(), cache.catalog(), cache.access()).load(catalog.parsed().catalog());
        return new DatabaseModule(db, cache, new Authorizer(cache.access()));
    }

    /** Who calls the market's and the console's routes, and for which of their clusters. */
    MarketCallers callers() {
        return new MarketCallers(cache.access(), db.clusters(), new ClusterLookup(db.clusters(), authorizer));
    }
}
