package com.bettercompute.application.incluster;

import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;

import java.util.Optional;

/**
 * How the platform reaches a cluster's Kubernetes API: its endpoint and CA as the provider reported them,
 * and the provider account's platform credential (asked for on every call; the provider caches it).
 */
public final class ClusterConnections {
    private final ClusterRepository clusters;
    private final CatalogRepository catalog;
    private final ClusterProviders providers;

    public ClusterConnections(ClusterRepository clusters, CatalogRepository catalog, ClusterProviders providers) {
        this.clusters = clusters;
        this.catalog = catalog;
        this.providers = providers;
    }

    /** The cluster's connection; empty while it is not reachable (not ready, no endpoint or CA yet, deleted). */
    public Optional<ClusterConnection> of(String clusterId) {
        return clusters.find(clusterId).filter(ClusterConnections::reachable).flatMap(c -> catalog.account(c.providerAccountId())
                .map(account -> new ClusterConnection("https://" + c.endpoint(), c.progress().caCertificate(),
                        providers.forAccount(account).platformAccessToken())));
    }

    /** The cluster itself, when it exists and is not deleted. */
    public Optional<Cluster> cluster(String clusterId) {
        return clusters.find(clusterId).filter(c -> c.state() != ClusterState.DELETED);
    }

    /** The cluster, deleted or not, while its row is kept. */
    public Optional<Cluster> clusterEvenDeleted(String clusterId) {
        return clusters.find(clusterId);
    }

    /** Connectable, as {@link ClusterLookup#reach} decides for every use case that reaches a cluster. */
    static boolean reachable(Cluster c) {
        return ClusterLookup.reach(c) == ClusterLookup.Reach.CONNECTABLE;
    }
}
