package com.bettercompute.bootstrap.catalog;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * The catalog file as written, bound by Jackson: an absent key is null; {@link CatalogFile} checks the values and
 * builds the catalog. Whole numbers are {@link BigInteger} so a huge one is refused by its range, not by an overflow;
 * amounts are {@link BigDecimal} from a YAML number or a string such as {@code "1.20"}.
 */
record CatalogDocument(List<ProviderEntry> providers, List<AccountEntry> accounts, List<TenantEntry> tenants,
                       List<PoolEntry> pools, List<PrincipalEntry> principals, MarketSection market,
                       LoadBalancersSection loadBalancers, StorageSection storage) {

    static final CatalogDocument EMPTY = new CatalogDocument(null, null, null, null, null, null, null, null);

    record ProviderEntry(String id, Boolean managedKubernetes) {
    }

    record AccountEntry(String id, String provider, String owner, String cloudProject, List<String> zones,
                        String credentialsFile) {
    }

    record TenantEntry(String id, BigInteger maxClusters, BigDecimal credits, TenantMarket market, List<String> projects,
                       List<NetworkEntry> networks, TenantLoadBalancers loadBalancers, List<BudgetEntry> budgets) {
    }

    record TenantMarket(BigInteger maxClusterGpus, Boolean packing) {
    }

    record NetworkEntry(String id, String account, String state, List<SubnetEntry> subnets) {
    }

    record SubnetEntry(String name, String region, String state) {
    }

    record TenantLoadBalancers(BigInteger clusterCap) {
    }

    record BudgetEntry(String id, BigDecimal limitUsd, BigDecimal spentUsd) {
    }

    record PoolEntry(String id, String account, String kind, String billingMode, List<OfferEntry> offers) {
    }

    record OfferEntry(String tenant, String state, List<String> excludedRegions) {
    }

    record PrincipalEntry(String id, String tokenSha256, String token, Boolean operator, List<BindingEntry> bindings) {
    }

    record BindingEntry(String tenant, String cluster, String role, Map<String, List<String>> where) {
    }

    record MarketSection(MarketDurations durations, List<MarketPoolEntry> pools) {
    }

    record MarketDurations(String notice, String minimumHold, String protectionWindow, String idleGrace,
                           String balanceCover, String billingPeriod) {
    }

    record MarketPoolEntry(String id, String account, String zone, String machineType, Accelerator accelerator,
                           BigInteger nodes, BigDecimal reserve) {
    }

    record Accelerator(String type, BigInteger count) {
    }

    record LoadBalancersSection(BigInteger clusterCap, List<AddressPool> addressPools) {
    }

    record AddressPool(String region, BigInteger limit) {
    }

    record StorageSection(List<String> sharedVolumePools, String sampleEvery, List<StorageBilling> billing) {
    }

    record StorageBilling(String site, BigDecimal pricePerGiBMonth) {
    }
}
