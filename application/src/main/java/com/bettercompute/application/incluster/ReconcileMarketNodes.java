package com.bettercompute.application.incluster;

import com.bettercompute.application.market.MarketCatalog;
import com.bettercompute.application.market.ReportBlockNode;
import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.market.ReportNodeLeft;
import com.bettercompute.application.market.ReportNodeReady;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ClusterNode;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.NodePoolObservation;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.application.reconcile.ProviderSpecs;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Node;
import com.bettercompute.domain.market.NodeGrant;
import com.bettercompute.domain.market.Pool;
import com.bettercompute.domain.market.RequestPhase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Makes a cluster's market nodes what the market's saved grants say (docs/decisions/market-in-cluster.md). Every live grant is one provider node pool of one node, named from the grant
 * ({@link #poolName}), so a restart adopts the pool it made before a crash and a reclaim removes exactly its
 * node; a pool of that shape whose grant is no longer live is deleted. At most one provider change per pass
 * (the provider runs one operation per cluster at a time). In the cluster, each grant's node (found by its
 * pool label) carries the market node labels, its request's label and the GPU worker taint; its Ready is
 * the market's "node ready"; a node that was ready and is gone is the market's "node left". A node health
 * checks took out of service stays, cordoned and tainted, its pods evicted with the eviction grace, until it
 * is back (then an idle node of the cluster) or removed for good. The nodes of the cluster's base load block
 * join it the same way, a pool of one node each, labelled {@value MarketClusterClient#BLOCK_NODE_LABEL}; a block
 * node's Ready is the market's "block node ready" (the block is live and seats sub-node requests), its leaving
 * after that "block node left".
 */
public final class ReconcileMarketNodes {
    private static final Logger LOG = LoggerFactory.getLogger(ReconcileMarketNodes.class);
    /** Every market node pool's name starts with this; no tenant pool can (theirs are validated names). */
    public static final String POOL_PREFIX = "mk-";

    /** What one pass did. */
    public record Outcome(List<String> created, List<String> deleted, List<String> ready, List<String> left) {
    }

    private final MarketRepository markets;
    private final MarketCatalog catalog;
    private final ClusterConnections connections;
    private final CatalogRepository accounts;
    private final ClusterProviders providers;
    private final MarketClusterClient clusters;
    private final ReportNodeReady reportReady;
    private final ReportNodeLeft reportLeft;
    private final ReportBlockNode reportBlock;
    private final NodeNotice notice;
    private final Clock clock;

    public ReconcileMarketNodes(Transactions transactions, MarketRepository markets, MarketCatalog catalog,
                                ClusterConnections connections, CatalogRepository accounts, ClusterProviders providers,
                                MarketClusterClient clusters, EventOutbox outbox, Clock clock) {
        this.markets = markets;
        this.catalog = catalog;
        this.connections = connections;
        this.accounts = accounts;
        this.providers = providers;
        this.clusters = clusters;
        // The gang's conditions follow from the saved state (PublishRequestStatus), not from these events.
        MarketEffects fromSavedState = events -> { };
        this.reportReady = new ReportNodeReady(transactions, markets, outbox, fromSavedState, clock);
        this.reportLeft = new ReportNodeLeft(transactions, markets, outbox, clock);
        this.reportBlock = new ReportBlockNode(transactions, markets, outbox, clock);
        this.notice = new NodeNotice(clusters, clock);
        this.clock = clock;
    }

    /**
     * The provider node pool of a market node in a cluster: {@code mk-} and 20 hex digits of a hash of both
     * (a valid GKE pool name). The same node granted to the same cluster again keeps its pool.
     */
    public static String poolName(String clusterId, String nodeId) {
        return POOL_PREFIX + Ids.sha256Hex(clusterId + "/" + nodeId).substring(0, 20);
    }

    /**
     * @throws ProviderException when the provider or the cluster's API failed (the next pass tries again)
     */
    public Outcome reconcile(String clusterId) {
        return reconcile(markets.load(), clusterId);
    }

    /**
     * {@link #reconcile(String)} from a market read already ({@code market}: read, never saved; a node's ready or
     * left is saved by its own use case on the market as it is then).
     */
    public Outcome reconcile(Market market, String clusterId) {
        Optional<Cluster> found = connections.cluster(clusterId);
        Optional<ClusterConnection> connection = connections.of(clusterId);
        if (found.isEmpty() || connection.isEmpty()) {
            return new Outcome(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
        return reconcile(market, found.get(), connection.get(), true);
    }

    /**
     * {@link #reconcile(Market, String)} of a cluster and its connection read already this pass. The provider is
     * asked for the cluster's node pools only when the market has a node for the cluster (granted, on its base
     * load block, draining or out of service), when a market node shows in the cluster, or with {@code sweep}: a
     * cluster with none of these has nothing to create, keep or report, and a pool left over without a node is
     * found at the next sweep. Every pass would otherwise ask the provider once per cluster for nothing.
     */
    public Outcome reconcile(Market market, Cluster cluster, ClusterConnection connection, boolean sweep) {
        Outcome outcome = new Outcome(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        String clusterId = cluster.id();
        if (!market.hasCluster(clusterId)) {
            return outcome;
        }
        ProviderAccount account = accounts.account(cluster.providerAccountId()).orElse(null);
        if (account == null) {
            return outcome;
        }
        ClusterProvider provider = providers.forAccount(account);
        ClusterLocator at = ProviderSpecs.locator(cluster, account);
        Map<String, NodeGrant> wanted = new LinkedHashMap<>();
        for (NodeGrant g : market.liveGrants()) {
            if (g.clusterId().equals(clusterId)) {
                wanted.put(poolName(clusterId, g.nodeId()), g);
            }
        }
        Map<String, Node> block = new LinkedHashMap<>();
        for (String nodeId : market.cluster(clusterId).blockNodeIds()) {
            block.put(poolName(clusterId, nodeId), market.node(nodeId));
        }
        // A node whose grant ended with its pods running drains first: its pool stays until the grace is over.
        // A node health checks took out of service stays in the cluster that lost it while it is investigated.
        Instant now = clock.instant();
        List<Node> leaving = new ArrayList<>();
        for (Pool pool : market.pools()) {
            for (Node n : market.nodes(pool.id())) {
                if (outOfServiceFrom(n, clusterId) || (n.drainingUntil() != null && n.drainingUntil().isAfter(now))) {
                    leaving.add(n);
                }
            }
        }
        List<ClusterNode> inCluster = clusters.nodes(connection);
        boolean marketNodeShows = inCluster.stream().anyMatch(n -> n.labels()
                .getOrDefault(MarketClusterClient.NODE_POOL_LABEL, "").startsWith(POOL_PREFIX));
        if (wanted.isEmpty() && block.isEmpty() && leaving.isEmpty() && !marketNodeShows && !sweep) {
            return outcome;
        }
        ClusterObservation observed = provider.observe(at);
        if (!observed.exists()) {
            return outcome;
        }
        Map<String, Node> draining = new LinkedHashMap<>();
        Map<String, Node> outOfService = new LinkedHashMap<>();
        for (Node n : leaving) {
            String name = poolName(clusterId, n.id());
            if (wanted.containsKey(name) || observed.nodePool(name).isEmpty()) {
                continue;
            }
            if (outOfServiceFrom(n, clusterId)) {
                outOfService.put(name, n);
            } else {
                draining.put(name, n);
            }
        }
        Set<String> kept = new HashSet<>(draining.keySet());
        kept.addAll(outOfService.keySet());
        changeOnePool(provider, at, market, cluster, wanted, block, kept, observed, outcome);

        Map<String, ClusterNode> nodesByPool = new HashMap<>();
        for (ClusterNode n : inCluster) {
            String pool = n.labels().get(MarketClusterClient.NODE_POOL_LABEL);
            if (pool != null && (wanted.containsKey(pool) || kept.contains(pool) || block.containsKey(pool))) {
                nodesByPool.put(pool, n);
            }
        }
        // Every node reclaimed in this pass drains together: all cordoned first, then all their pods.
        List<NodeNotice.Drain> drains = new ArrayList<>();
        Duration grace = market.timings().evictionGrace();
        for (Map.Entry<String, Node> e : draining.entrySet()) {
            ClusterNode node = nodesByPool.get(e.getKey());
            if (node != null) {
                Instant until = e.getValue().drainingUntil();
                drains.add(new NodeNotice.Drain(node, until.minus(grace), until, labels(e.getValue().pool().nodeClass(), null)));
            }
        }
        for (Map.Entry<String, Node> e : outOfService.entrySet()) {
            ClusterNode node = nodesByPool.get(e.getKey());
            if (node != null) {
                Instant deadline = e.getValue().lostGrant().endsAt().plus(market.timings().evictionGrace());
                notice.outOfService(connection, node, deadline, labels(e.getValue().pool().nodeClass(), null));
            }
        }
        for (Map.Entry<String, Node> e : block.entrySet()) {
            Node blockNode = e.getValue();
            ClusterNode node = nodesByPool.get(e.getKey());
            if (node == null) {
                if (blockNode.blockReadyAt() != null && observed.nodePool(e.getKey()).isPresent()) {
                    reportBlock.left(blockNode.id());
                    outcome.left().add(blockNode.id());
                }
                continue;
            }
            notice.keep(connection, node, blockLabels(blockNode.pool().nodeClass()));
            if (node.ready() && blockNode.blockReadyAt() == null) {
                reportBlock.ready(blockNode.id());
                outcome.ready().add(blockNode.id());
            }
        }
        for (Map.Entry<String, NodeGrant> e : wanted.entrySet()) {
            NodeGrant grant = e.getValue();
            ClusterNode node = nodesByPool.get(e.getKey());
            if (node == null) {
                if (grant.readyAt() != null && observed.nodePool(e.getKey()).isPresent()) {
                    reportLeft.report(new ReportNodeLeft.Command(grant.nodeId()));
                    outcome.left().add(grant.nodeId());
                }
                continue;
            }
            String request = grant.requestId();
            Map<String, String> labels = labels(market.node(grant.nodeId()).pool().nodeClass(), request);
            Instant deadline = request != null && market.hasOpenRequest(jobOf(market, request))
                    ? noticeDeadline(market, grant) : null;
            if (deadline != null) {
                drains.add(new NodeNotice.Drain(node, deadline.minus(market.timings().notice()), deadline, labels));
            } else {
                notice.keep(connection, node, labels);
            }
            if (node.ready() && grant.readyAt() == null) {
                reportReady.report(new ReportNodeReady.Command(grant.nodeId()));
                outcome.ready().add(grant.nodeId());
            }
        }
        notice.drain(connection, drains);
        return outcome;
    }

    /**
     * Creates the first missing pool (granted nodes first, then block nodes), else deletes the first pool neither
     * wanted nor kept; nothing while the cluster is busy.
     */
    private void changeOnePool(ClusterProvider provider, ClusterLocator at, Market market, Cluster cluster,
                               Map<String, NodeGrant> wanted, Map<String, Node> block, Set<String> kept,
                               ClusterObservation observed, Outcome outcome) {
        if (observed.busy()) {
            return;
        }
        for (Map.Entry<String, NodeGrant> e : wanted.entrySet()) {
            if (observed.nodePool(e.getKey()).isEmpty()) {
                NodeGrant grant = e.getValue();
                provider.createNodePool(at, spec(e.getKey(), market.node(grant.nodeId()).pool(),
                        labels(market.node(grant.nodeId()).pool().nodeClass(), grant.requestId())));
                outcome.created().add(e.getKey());
                return;
            }
        }
        for (Map.Entry<String, Node> e : block.entrySet()) {
            if (observed.nodePool(e.getKey()).isEmpty()) {
                Node node = e.getValue();
                provider.createNodePool(at, spec(e.getKey(), node.pool(), blockLabels(node.pool().nodeClass())));
                outcome.created().add(e.getKey());
                return;
            }
        }
        for (NodePoolObservation pool : observed.nodePools()) {
            if (pool.name().startsWith(POOL_PREFIX) && !wanted.containsKey(pool.name()) && !kept.contains(pool.name())
                    && !block.containsKey(pool.name())) {
                provider.deleteNodePool(at, pool.name());
                outcome.deleted().add(pool.name());
                return;
            }
        }
    }

    private NodePoolSpec spec(String name, com.bettercompute.domain.market.PoolId poolId, Map<String, String> labels) {
        MarketCatalog.PoolSpec sold = catalog.pools().stream().filter(p -> p.id().equals(poolId)).findFirst()
                .orElseThrow(() -> new ProviderException(ProviderException.Kind.INVALID,
                        "The market's pool " + poolId + " is not in the catalog: no machine to make its node of."));
        return new NodePoolSpec(name, sold.machineType(), 1, null, NodePoolSpec.DEFAULT_DISK_GIB,
                NodePoolSpec.DEFAULT_DISK_TYPE, false, new Accelerators(sold.acceleratorType(), sold.gpusPerNode()),
                List.of(), labels, List.of(new Taint(NodeNotice.GPU_WORKER.key(), NodeNotice.GPU_WORKER.value(), TaintEffect.NoSchedule)));
    }

    /** A market node's labels: its request's when it serves one (null when idle). */
    static Map<String, String> labels(String nodeClass, String requestId) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(MarketClusterClient.MARKET_NODE_LABEL, "true");
        labels.put(MarketClusterClient.NODE_CLASS_LABEL, nodeClass);
        if (requestId != null) {
            labels.put(MarketClusterClient.REQUEST_LABEL, InClusterNames.requestLabel(requestId));
        }
        return labels;
    }

    /** A base load block node's labels: a market node's (the flavor selects them) and the block's own. */
    static Map<String, String> blockLabels(String nodeClass) {
        Map<String, String> labels = labels(nodeClass, null);
        labels.put(MarketClusterClient.BLOCK_NODE_LABEL, "true");
        return labels;
    }

    /** Whether health checks took {@code n} out of service while it was granted to {@code clusterId}. */
    private static boolean outOfServiceFrom(Node n, String clusterId) {
        return !n.inService() && n.lostGrant() != null && n.lostGrant().clusterId().equals(clusterId);
    }

    /** The job of a request: its id up to the attempt ({@code <job>#<n>}). */
    private static String jobOf(Market market, String requestId) {
        int hash = requestId.lastIndexOf('#');
        return hash < 0 ? requestId : requestId.substring(0, hash);
    }

    /** The deadline of the notice the grant's gang is under, null when it is not reclaimed. */
    private static Instant noticeDeadline(Market market, NodeGrant grant) {
        MarketRequest r = market.openRequest(jobOf(market, grant.requestId()));
        return r.id().equals(grant.requestId()) && r.phase() == RequestPhase.RECLAIMING ? r.noticeDeadline() : null;
    }
}
