package com.bettercompute.application.fakes;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@link CatalogRepository} on an {@link InMemoryStore}. */
public final class InMemoryCatalogRepository implements CatalogRepository {
    private final InMemoryStore store;

    public InMemoryCatalogRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public void save(Catalog catalog) {
        store.lockedRun(s -> {
            catalog.providers().forEach(p -> s.providers.put(p.id(), p));
            catalog.accounts().forEach(a -> s.accounts.put(a.id(), a));
            catalog.pools().forEach(p -> s.pools.put(p.id(), p));
            s.offers.clear();
            catalog.offers().forEach(o -> s.offers.put(offerKey(o.poolId(), o.tenantId()), o));
            catalog.tenants().forEach(t -> s.tenants.put(t.id(), t));
            catalog.projects().forEach(p -> s.projects.put(p.id(), p));
            catalog.networks().forEach(n -> s.networks.put(n.id(), n));
            s.budgets.clear();
            catalog.budgets().forEach(b -> s.budgets.put(b.tenantId() + '\n' + b.id(), b));
            s.retired.clear();
            retireOthers(s, Kind.PROVIDER, s.providers.keySet(), catalog.providers().stream().map(Provider::id).toList());
            retireOthers(s, Kind.ACCOUNT, s.accounts.keySet(), catalog.accounts().stream().map(ProviderAccount::id).toList());
            retireOthers(s, Kind.POOL, s.pools.keySet(), catalog.pools().stream().map(Pool::id).toList());
            retireOthers(s, Kind.TENANT, s.tenants.keySet(), catalog.tenants().stream().map(Tenant::id).toList());
            retireOthers(s, Kind.PROJECT, s.projects.keySet(), catalog.projects().stream().map(Project::id).toList());
            retireOthers(s, Kind.NETWORK, s.networks.keySet(), catalog.networks().stream().map(Network::id).toList());
        });
    }

    private static void retireOthers(InMemoryStore.State s, Kind kind, Set<String> stored, List<String> named) {
        stored.stream().filter(id -> !named.contains(id)).forEach(id -> s.retired.add(kind + "\n" + id));
    }

    @Override
    public boolean retired(Kind kind, String id) {
        return store.locked(s -> s.retired.contains(kind + "\n" + id));
    }

    @Override
    public Optional<Provider> provider(String id) {
        return store.locked(s -> Optional.ofNullable(s.providers.get(id)));
    }

    @Override
    public Optional<ProviderAccount> account(String id) {
        return store.locked(s -> Optional.ofNullable(s.accounts.get(id)));
    }

    @Override
    public Optional<Pool> pool(String id) {
        return store.locked(s -> Optional.ofNullable(s.pools.get(id)));
    }

    @Override
    public Optional<Offer> offer(String poolId, String tenantId) {
        return store.locked(s -> Optional.ofNullable(s.offers.get(offerKey(poolId, tenantId))));
    }

    @Override
    public Optional<Tenant> tenant(String id) {
        return store.locked(s -> Optional.ofNullable(s.tenants.get(id)));
    }

    /** Transactions of the fakes are serialized, so holding the transaction is holding every tenant's lock. */
    @Override
    public boolean lockTenant(String id) {
        if (!store.inTransaction()) {
            throw new IllegalStateException("lockTenant must be called inside Transactions.inTransaction");
        }
        return store.locked(s -> s.tenants.containsKey(id));
    }

    @Override
    public Optional<Project> project(String id) {
        return store.locked(s -> Optional.ofNullable(s.projects.get(id)));
    }

    @Override
    public Optional<Network> network(String id) {
        return store.locked(s -> Optional.ofNullable(s.networks.get(id)));
    }

    /** The tenant's budgets by id. */
    @Override
    public List<Budget> budgets(String tenantId) {
        return store.locked(s -> s.budgets.values().stream()
                .filter(b -> b.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(Budget::id))
                .toList());
    }

    private static String offerKey(String poolId, String tenantId) {
        return poolId + '\n' + tenantId;
    }
}
