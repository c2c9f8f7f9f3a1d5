package com.bettercompute.application.signin;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.reconcile.ProviderSpecs;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;

import java.util.List;
import java.util.Optional;

/**
 * The clusters sign-in is for, named as the ID token's audience names them: the cluster as its provider
 * names it, {@code projects/<project>/locations/<location>/clusters/<name>} (what the provider's API calls
 * it, and what a kube-apiserver's OIDC authenticator is configured with as its client id).
 */
public final class SignInClusters {
    private static final int SCAN_LIMIT = 20_000;

    private final ClusterRepository clusters;
    private final CatalogRepository catalog;

    public SignInClusters(ClusterRepository clusters, CatalogRepository catalog) {
        this.clusters = clusters;
        this.catalog = catalog;
    }

    /** The cluster's audience; empty while the provider has not named it (or its account is gone). */
    public Optional<String> audience(Cluster c) {
        if (c.providerName() == null) {
            return Optional.empty();
        }
        return catalog.account(c.providerAccountId()).map(account -> ProviderSpecs.locator(c, account))
                .map(at -> "projects/" + at.project() + "/locations/" + at.location() + "/clusters/" + at.name());
    }

    /** The live clusters of every organization that carry the name. */
    public List<Cluster> named(String name) {
        return live().stream().filter(c -> c.name().equals(name)).toList();
    }

    /** The live cluster a client id names: its audience, or a name exactly one live cluster carries. */
    public Optional<Cluster> byClientId(String clientId) {
        if (clientId.startsWith("projects/")) {
            return live().stream().filter(c -> audience(c).filter(clientId::equals).isPresent()).findFirst();
        }
        List<Cluster> named = named(clientId);
        return named.size() == 1 ? Optional.of(named.get(0)) : Optional.empty();
    }

    /** The cluster by id while it is not deleted. */
    public Optional<Cluster> live(String clusterId) {
        return clusters.find(clusterId).filter(c -> c.state() != ClusterState.DELETED);
    }

    private List<Cluster> live() {
        return clusters.list(new ClusterFilter(null, null, null, false), SCAN_LIMIT).stream()
                .filter(c -> c.state() != ClusterState.DELETED).toList();
    }
}
