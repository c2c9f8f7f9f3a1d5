package com.bettercompute.bootstrap;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What every API call reads of the operator's catalog — the principal of a token, its bindings, pools,
 * accounts, offers, tenants, retirements, budgets — kept in memory for a short time instead of read from
 * the database per call (a {@code create} made 13 such reads, a {@code get} 2). The catalog changes only
 * when it is loaded: a load through {@link #catalog} and {@link #access} empties the cache at once, and a
 * load by another replica on the same database is seen within the time to live. What calls write (clusters,
 * their owners, events) is never cached; nor is the tenant's lock.
 */
final class CatalogCache {
    private record OfferKey(String poolId, String tenantId) {}

    private record RetiredKey(CatalogRepository.Kind kind, String id) {}

    /** An entry of one kind by its id. */
    private record Keyed(String kind, String id) {}

    private final Cache<Object, Object> entries;
    private final CatalogRepository catalog;
    private final AccessRepository access;

    CatalogCache(CatalogRepository catalog, AccessRepository access, Duration ttl) {
        // one cache for every kind of entry: keys of different kinds are of different record types
        this.entries = Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(50_000).build();
        this.catalog = new CachedCatalog(catalog);
        this.access = new CachedAccess(access);
    }

    CatalogRepository catalog() {
        return catalog;
    }

    AccessRepository access() {
        return access;
    }

    @SuppressWarnings("unchecked")
    private <K, V> V read(K key, Function<K, V> load) {
        return (V) entries.get(key, k -> load.apply((K) k));
    }

    private final class CachedCatalog implements CatalogRepository {
        private final CatalogRepository db;

        CachedCatalog(CatalogRepository db) {
            this.db = db;
        }

        @Override
        public void save(Catalog c) {
            entries.invalidateAll();
            try {
                db.save(c);
            } finally {
                entries.invalidateAll();
            }
        }

        @Override
        public boolean retired(Kind kind, String id) {
            return read(new RetiredKey(kind, id), k -> db.retired(k.kind(), k.id()));
        }

        @Override
        public Optional<Provider> provider(String id) {
            return read(new Keyed("provider", id), k -> db.provider(k.id()));
        }

        @Override
        public Optional<ProviderAccount> account(String id) {
            return read(new Keyed("account", id), k -> db.account(k.id()));
        }

        @Override
        public Optional<Pool> pool(String id) {
            return read(new Keyed("pool", id), k -> db.pool(k.id()));
        }

        @Override
        public Optional<Offer> offer(String poolId, String tenantId) {
            return read(new OfferKey(poolId, tenantId), k -> db.offer(k.poolId(), k.tenantId()));
        }

        @Override
        public Optional<Tenant> tenant(String id) {
            return read(new Keyed("tenant", id), k -> db.tenant(k.id()));
        }

        @Override
        public boolean lockTenant(String id) {
            return db.lockTenant(id);
        }

        @Override
        public Optional<Project> project(String id) {
            return read(new Keyed("project", id), k -> db.project(k.id()));
        }

        @Override
        public Optional<Network> network(String id) {
            return read(new Keyed("network", id), k -> db.network(k.id()));
        }

        @Override
        public List<Budget> budgets(String tenantId) {
            return read(new Keyed("budgets", tenantId), k -> db.budgets(k.id()));
        }
    }

    private final class CachedAccess implements AccessRepository {
        private final AccessRepository db;

        CachedAccess(AccessRepository db) {
            this.db = db;
        }

        @Override
        public void save(List<CatalogPrincipal> principals) {
            entries.invalidateAll();
            try {
                db.save(principals);
            } finally {
                entries.invalidateAll();
            }
        }

        @Override
        public void removeOwnersOutside(Set<String> tenantIds) {
            db.removeOwnersOutside(tenantIds);
        }

        @Override
        public Optional<Principal> principalByTokenHash(String tokenSha256) {
            // keyed by the hash, never the token; an unknown hash is kept too, so a flood of bad tokens stays off the database
            return read(new Keyed("token", tokenSha256), k -> db.principalByTokenHash(k.id()));
        }

        @Override
        public List<RoleBinding> bindings(String principalId) {
            return read(new Keyed("bindings", principalId), k -> db.bindings(k.id()));
        }

        @Override
        public Optional<String> owner(String clusterId) {
            return db.owner(clusterId);
        }

        @Override
        public Set<String> clustersOwnedBy(String principalId) {
            return db.clustersOwnedBy(principalId);
        }

        @Override
        public void addOwner(String clusterId, String principalId) {
            db.addOwner(clusterId, principalId);
        }

        @Override
        public void addOwners(java.util.Map<String, String> ownerByCluster) {
            db.addOwners(ownerByCluster);
        }

        @Override
        public void removeOwner(String clusterId) {
            db.removeOwner(clusterId);
        }
    }
}
