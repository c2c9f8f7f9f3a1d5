package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.TenantCluster;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code PUT /api/operator/market/clusters}: enrols one cluster in the market, or changes its max cluster
 * size, packing or base load block. A field left out keeps its value; a new cluster takes its tenant's
 * market settings from the catalog for what is left out. All or nothing.
 */
public final class EnrolCluster {
    /** {@code block} null leaves the block as it is. */
    public record Command(String clusterId, Long maxClusterGpus, Boolean packing, Block block) {
    }

    public record Block(String pool, int nodes) {
    }

    /** The cluster as the market holds it. */
    public record Enrolment(String clusterId, String tenantId, long maxClusterGpus, boolean packing,
                            List<String> blockNodes, Money limit) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final ClusterRepository clusters;
    private final MarketCatalog catalog;
    private final Clock clock;

    public EnrolCluster(Transactions transactions, MarketRepository markets, ClusterRepository clusters,
                        MarketCatalog catalog, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.clusters = clusters;
        this.catalog = catalog;
        this.clock = clock;
    }

    public Enrolment enrol(Command command) {
        Cluster cluster = clusters.find(command.clusterId()).filter(c -> c.state() != ClusterState.DELETED)
                .orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "No cluster " + command.clusterId() + ".",
                        Map.of("field", "cluster_id")));
        PoolId blockPool = command.block() == null ? null : PoolId.parse(command.block().pool());
        return transactions.inTransaction(() -> {
            Market market = markets.load();
            apply(market, cluster, command, blockPool, clock.instant());
            markets.save(market);
            return view(market.cluster(cluster.id()));
        });
    }

    /** Enrols the cluster if it is not, with its tenant's settings; true when it was new. */
    boolean enrolIfAbsent(Market market, Cluster cluster, Instant at) {
        if (enrolled(market, cluster.id())) {
            return false;
        }
        apply(market, cluster, new Command(cluster.id(), null, null, null), null, at);
        return true;
    }

    private void apply(Market market, Cluster cluster, Command command, PoolId blockPool, Instant at) {
        MarketCatalog.Settings settings = catalog.tenant(cluster.tenantId()).map(MarketCatalog.TenantSpec::settings)
                .orElse(null);
        if (!enrolled(market, cluster.id())) {
            Long max = command.maxClusterGpus() != null ? command.maxClusterGpus()
                    : settings != null ? Long.valueOf(settings.maxClusterGpus()) : null;
            if (max == null) {
                throw new DomainException(ErrorCode.INVALID_INPUT, "Tenant " + cluster.tenantId()
                        + " has no market settings: give max_cluster_gpus to enrol its cluster.",
                        Map.of("fields", List.of(Map.of("field", "max_cluster_gpus",
                                "problem", "is required: the tenant has no market settings"))));
            }
            if (!market.hasTenant(cluster.tenantId())) {
                market.addTenant(cluster.tenantId(), Money.ZERO);
            }
            market.addCluster(cluster.id(), cluster.tenantId(), max, null);
            boolean packing = command.packing() != null ? command.packing() : settings != null && settings.packing();
            market.changeCluster(cluster.id(), max, packing, at);
        } else {
            TenantCluster c = market.cluster(cluster.id());
            market.changeCluster(cluster.id(),
                    command.maxClusterGpus() != null ? command.maxClusterGpus() : c.maxGpus(),
                    command.packing() != null ? command.packing() : c.packing(), at);
        }
        if (blockPool != null) {
            market.sizeBlock(cluster.id(), blockPool, command.block().nodes());
        }
    }

    static boolean enrolled(Market market, String clusterId) {
        return market.hasCluster(clusterId);
    }

    static Enrolment view(TenantCluster c) {
        return new Enrolment(c.id(), c.tenantId(), c.maxGpus(), c.packing(), c.blockNodeIds(), c.limit());
    }
}
