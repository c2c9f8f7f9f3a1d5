package com.bettercompute.bootstrap;

import com.bettercompute.adapters.k8s.Fabric8TenantClusterClient;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.bootstrap.gke.GkeProviderSetup;
import com.bettercompute.domain.catalog.Catalog;

import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The provider the clusters are made at ({@code --provider}, {@code --gke-endpoint}; the embedded GKE simulator by
 * default), each account's client metered and its version lists cached, and the clients of the clusters it makes.
 *
 * @param setup          the provider as the options chose it (and the embedded simulator, when there is one)
 * @param providers      each account's provider, as the use cases call it
 * @param tenantClusters the clients of the tenant clusters' Kubernetes APIs
 */
record ProviderModule(GkeProviderSetup setup, ClusterProviders providers, Fabric8TenantClusterClient tenantClusters) {
    /** How long the provider's version lists are kept. */
    static final Duration VERSIONS_TTL = Duration.ofSeconds(60);
    /** How long a call inside a tenant cluster may take (connect, and each request). */
    static final int TENANT_CLUSTER_TIMEOUT_MILLIS = 10_000;

    /**
     * Starts the provider. The embedded simulator's clusters learn whom to trust as GKE's do: from their Identity
     * Service configuration, which a sign-in's approval writes; nothing here names the platform's issuer to them.
     */
    static ProviderModule start(ServerConfig config, Metrics metrics, Clock clock, Closer closer) {
        GkeProviderSetup setup = closer.add("provider", GkeProviderSetup.from(config.provider(), config.gkeEndpoint(),
                Duration.ofSeconds(config.simOperationSeconds()), clock, config.simulatorStateDir()));
        Map<String, ClusterProvider> cached = new ConcurrentHashMap<>();
        ClusterProviders providers = account -> cached.computeIfAbsent(account.id() + "\n" + account.credentialsFile(),
                k -> new CachingClusterProvider(new MeteringClusterProvider(setup.provider(account), metrics), VERSIONS_TTL));
        // closed before the provider, whose simulated clusters serve them
        Fabric8TenantClusterClient tenantClusters = closer.add("tenant-clusters", new Fabric8TenantClusterClient(TENANT_CLUSTER_TIMEOUT_MILLIS));
        return new ProviderModule(setup, providers, tenantClusters);
    }

    /**
     * Is the provider reachable? Asks it for the versions of the first managed-Kubernetes account's first zone:
     * the cheapest call that needs the account's credentials. Empty when the catalog has no account to ask with.
     */
    Optional<Supplier<Optional<String>>> probe(Catalog catalog, Metrics metrics) {
        Set<String> managed = new HashSet<>();
        catalog.providers().stream().filter(p -> p.managedKubernetes()).forEach(p -> managed.add(p.id()));
        return catalog.accounts().stream().filter(a -> managed.contains(a.providerId()) && !a.zones().isEmpty()).findFirst().map(account -> {
            ClusterProvider probed = new MeteringClusterProvider(setup.provider(account), metrics);
            return () -> {
                try {
                    probed.serverConfig(account.cloudProject(), account.zones().get(0));
                    return Optional.empty();
                } catch (ProviderException e) {
                    return Optional.of("does not answer (" + e.kind().name().toLowerCase(Locale.ROOT) + ")");
                }
            };
        });
    }
}
