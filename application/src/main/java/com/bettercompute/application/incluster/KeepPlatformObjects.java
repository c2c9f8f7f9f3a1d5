package com.bettercompute.application.incluster;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps the platform's Kueue objects of a market-managed cluster as the market declares them: a flavor per
 * node class sold at the cluster's site (its region), the ClusterQueue's GPU quota the cluster's max
 * cluster size, and the admission webhooks' configurations pointing at the platform; and the CPU worker's role label on
 * its nodes, which the {@code cpu} flavor selects and which no kubelet may give itself. Run on enrolment and on every
 * resync, so a changed max cluster size, a new pool, an object someone edited or deleted, or a CPU worker node GKE
 * replaced converges.
 */
public final class KeepPlatformObjects {
    private final MarketRepository markets;
    private final ClusterConnections connections;
    private final MarketClusterClient clusters;
    private final AdmissionEndpoints admission;

    public KeepPlatformObjects(MarketRepository markets, ClusterConnections connections, MarketClusterClient clusters) {
        this(markets, connections, clusters, null);
    }

    /** With {@code admission}, each cluster's admission webhook configurations are kept too (null: none). */
    public KeepPlatformObjects(MarketRepository markets, ClusterConnections connections, MarketClusterClient clusters,
                               AdmissionEndpoints admission) {
        this.markets = markets;
        this.connections = connections;
        this.clusters = clusters;
        this.admission = admission;
    }

    /**
     * @return false when there was nothing to do: the cluster is not enrolled or not reachable yet
     * @throws com.bettercompute.application.port.ProviderException when the cluster's API failed
     */
    public boolean keep(String clusterId) {
        return keep(markets.load(), clusterId);
    }

    /** {@link #keep(String)} on a market read already ({@code view}: read, never saved). */
    public boolean keep(Market market, String clusterId) {
        Optional<Cluster> cluster = connections.cluster(clusterId);
        if (!market.hasCluster(clusterId) || cluster.isEmpty()) {
            return false;
        }
        Optional<ClusterConnection> connection = connections.of(clusterId);
        if (connection.isEmpty()) {
            return false;
        }
        PlatformObjects declared = declared(market, clusterId, cluster.get().region());
        if (admission != null) {
            declared = new PlatformObjects(declared.maxClusterGpus(), declared.nodeClasses(),
                    admission.webhooks(clusterId).orElse(null));
        }
        clusters.ensurePlatformObjects(connection.get(), declared);
        clusters.labelPoolNodes(connection.get(), CpuWorker.NAME, Map.of(CpuWorker.ROLE_LABEL, ""));
        return true;
    }

    static PlatformObjects declared(Market market, String clusterId, String site) {
        List<NodeClass> classes = new ArrayList<>();
        for (Pool pool : market.pools()) {
            if (pool.id().site().equals(site)) {
                classes.add(new NodeClass(pool.id().nodeClass(), Map.of(
                        MarketClusterClient.NODE_CLASS_LABEL, pool.id().nodeClass(),
                        MarketClusterClient.MARKET_NODE_LABEL, "true")));
            }
        }
        return new PlatformObjects(market.cluster(clusterId).maxGpus(), classes);
    }
}
