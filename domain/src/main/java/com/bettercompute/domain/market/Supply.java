package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The market's supply: pools and their reserve prices, the nodes of each pool, the nodes a cluster's base
 * load block takes out of supply, and what health checks say of a node. What happens to a grant on a node
 * that leaves is the grant lifecycle's.
 */
final class Supply {
    private final MarketState state;
    private final ChangeLog changes;
    private final ClusterQueues queues;
    private final GrantLifecycle lifecycle;

    Supply(MarketState state, ClusterQueues queues, GrantLifecycle lifecycle) {
        this.state = state;
        this.changes = state.changes;
        this.queues = queues;
        this.lifecycle = lifecycle;
    }

    void addPool(PoolId id, int gpusPerNode, Money reserve) {
        if (state.pools.containsKey(id)) {
            throw new DomainException(ErrorCode.CONFLICT, "pool " + id + " exists", Map.of("pool", id.toString()));
        }
        state.pools.put(id, new PoolBook(new Pool(id, gpusPerNode, reserve)));
    }

    void changeReserve(PoolId id, Money reserve) {
        PoolBook b = state.book(id);
        b.pool = b.pool.withReserve(reserve);
    }

    void addNode(String nodeId, PoolId poolId) {
        PoolBook b = state.book(poolId);
        if (state.nodes.containsKey(nodeId)) {
            throw new DomainException(ErrorCode.CONFLICT, "node " + nodeId + " exists", Map.of("node", nodeId));
        }
        Node node = new Node(nodeId, poolId);
        state.nodes.put(nodeId, node);
        changes.touch(node);
        b.nodes.put(nodeId, node);
        b.free.put(nodeId, node);
        b.supply++;
    }

    /** The operator removes a node for good (or, live, a granted node left its cluster). */
    void removeNode(String nodeId, Instant at) {
        Node node = state.node(nodeId);
        PoolBook b = state.book(node.pool);
        lifecycle.nodeGone(node, at);
        boolean supplied = supplies(node);
        changes.touch(node);
        b.free.remove(nodeId);
        b.nodes.remove(nodeId);
        b.draining.remove(node);
        node.drainingUntil = null;
        if (supplied) {
            b.supply--;
        }
        if (node.block != null) {
            queues.unseat(node);
            node.block.blockNodes.remove(nodeId);
        }
        state.nodes.remove(nodeId);
    }

    /** Moves a free node into a cluster's base load block: out of market supply. */
    void assignBlock(String clusterId, String nodeId) {
        TenantCluster c = state.cluster(clusterId);
        Node node = state.node(nodeId);
        if (node.grant != null || node.block != null || node.drainingUntil != null) {
            throw new DomainException(ErrorCode.INVALID_STATE, "node " + nodeId + " is not free",
                    Map.of("node", nodeId));
        }
        PoolBook b = state.book(node.pool);
        b.free.remove(nodeId);
        if (node.inService) {
            b.supply--;
        }
        node.block = c;
        changes.touch(node);
        c.blockNodes.add(nodeId);
    }

    /**
     * Sizes a cluster's base load block in a pool to {@code count} nodes: free nodes join it (in id
     * order), unseated block nodes leave it back to supply. All or nothing.
     */
    void sizeBlock(String clusterId, PoolId poolId, int count) {
        TenantCluster c = state.cluster(clusterId);
        PoolBook b = state.book(poolId);
        if (count < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a block holds zero or more nodes",
                    Map.of("nodes", count));
        }
        List<Node> inPool = new ArrayList<>();
        for (String id : c.blockNodes) {
            Node n = state.nodes.get(id);
            if (n.pool.equals(poolId)) {
                inPool.add(n);
            }
        }
        if (count > inPool.size()) {
            List<String> free = new ArrayList<>(new TreeSet<>(b.free.keySet()));
            int more = count - inPool.size();
            if (free.size() < more) {
                throw new DomainException(ErrorCode.INVALID_STATE, "pool " + poolId + " has " + free.size()
                        + " free nodes; the block needs " + more + " more",
                        Map.of("pool", poolId.toString(), "free", free.size(), "needed", more));
            }
            for (int i = 0; i < more; i++) {
                assignBlock(clusterId, free.get(i));
            }
        } else if (count < inPool.size()) {
            List<Node> unseated = new ArrayList<>();
            for (Node n : inPool) {
                if (n.seatedGpus == 0) {
                    unseated.add(n);
                }
            }
            int fewer = inPool.size() - count;
            if (unseated.size() < fewer) {
                throw new DomainException(ErrorCode.INVALID_STATE, "only " + unseated.size()
                        + " block nodes hold no seated request; the block cannot shrink by " + fewer,
                        Map.of("pool", poolId.toString(), "unseated", unseated.size(), "fewer", fewer));
            }
            for (int i = unseated.size() - 1; i >= unseated.size() - fewer; i--) {
                Node n = unseated.get(i);
                c.blockNodes.remove(n.id);
                n.block = null;
                n.blockReadyAt = null;
                changes.touch(n);
                if (n.inService) {
                    b.free.put(n.id, n);
                    b.supply++;
                }
            }
        }
    }

    /** A block node is ready in its cluster: from now on it seats sub-node requests. Idempotent. */
    void blockNodeReady(String nodeId, Instant at) {
        Node node = state.node(nodeId);
        if (node.block != null && node.blockReadyAt == null) {
            node.blockReadyAt = at;
            changes.touch(node);
        }
    }

    /** A block node left its cluster: it seats nothing until it is ready again, and what sat on it waits again. */
    void blockNodeLeft(String nodeId) {
        Node node = state.node(nodeId);
        if (node.block != null && node.blockReadyAt != null) {
            node.blockReadyAt = null;
            queues.unseat(node);
        }
    }

    /** Health checks cordoned a node: out of supply, and its grant, if any, is lost. */
    void nodeOutOfService(String nodeId, Instant at) {
        Node node = state.node(nodeId);
        if (!node.inService) {
            return;
        }
        PoolBook b = state.book(node.pool);
        boolean supplied = supplies(node);
        node.inService = false;
        changes.touch(node);
        b.free.remove(nodeId);
        b.draining.remove(node);
        node.drainingUntil = null;
        if (supplied) {
            b.supply--;
        }
        if (node.block != null) {
            queues.unseat(node);
        }
        lifecycle.nodeLost(node, at);
    }

    /** Health checks cleared a node: back in service, as idle capacity of the cluster that lost it. */
    void nodeBack(String nodeId, Instant at) {
        Node node = state.node(nodeId);
        if (node.inService) {
            return;
        }
        PoolBook b = state.book(node.pool);
        node.inService = true;
        changes.touch(node);
        if (node.block != null) {
            return;
        }
        b.supply++;
        NodeGrant lost = node.lostGrant;
        node.lostGrant = null;
        if (lost == null || !state.clusters.containsKey(lost.cluster.id)) {
            b.free.put(nodeId, node);
            return;
        }
        lifecycle.nodeBack(node, lost, b, at);
    }

    /** Whether a node counts as supply: in service, on the market, not draining. */
    private static boolean supplies(Node node) {
        return node.inService && node.block == null && node.drainingUntil == null;
    }
}
