package com.bettercompute.domain.catalog;

import java.util.List;

/** Everything a catalog file holds, validated and ready to store. */
public record Catalog(
        List<Provider> providers,
        List<ProviderAccount> accounts,
        List<Pool> pools,
        List<Offer> offers,
        List<Tenant> tenants,
        List<Project> projects,
        List<Network> networks,
        List<Budget> budgets,
        List<CatalogPrincipal> principals) {

    public Catalog {
        providers = List.copyOf(providers);
        accounts = List.copyOf(accounts);
        pools = List.copyOf(pools);
        offers = List.copyOf(offers);
        tenants = List.copyOf(tenants);
        projects = List.copyOf(projects);
        networks = List.copyOf(networks);
        budgets = List.copyOf(budgets);
        principals = List.copyOf(principals);
    }
}
