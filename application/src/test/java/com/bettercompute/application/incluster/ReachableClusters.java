package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.domain.cluster.Cluster;

/** Gives a cluster of the in-memory ports an endpoint and a CA, as the provider reports once it runs. */
public final class ReachableClusters {
    private ReachableClusters() {
    }

    public static void reachable(InMemoryPorts ports, String clusterId) {
        reachable(ports, clusterId, "127.0.0.1:6443");
    }

    /** At {@code endpoint} ({@code host:port}), where a test tells clusters apart by their endpoints. */
    public static void reachable(InMemoryPorts ports, String clusterId, String endpoint) {
        Cluster c = ports.clusters().find(clusterId).orElseThrow();
        Cluster withEndpoint = new Cluster(c.id(), c.tenantId(), c.projectId(), c.poolId(), c.providerAccountId(), c.name(),
                c.description(), c.mode(), c.location(), c.region(), c.locationType(), c.releaseChannel(),
                c.requestedVersion(), c.kubernetesVersion(), c.nodeVersion(), endpoint, c.authorizedNetworks(),
                c.privateNodes(), c.networkId(), c.subnetName(), c.state(), c.message(), c.providerName(), c.ownerId(),
                c.requestFingerprint(), c.version(), c.createdAt(), c.updatedAt(), c.readyAt(), c.deletedAt(), c.nodePools(),
                new Cluster.Progress(null, null, null, 0, null, "Y2E=", null));
        ports.transactions().inTransaction(() -> {
            ports.clusters().update(withEndpoint, c.version());
            return null;
        });
    }
}
