package com.bettercompute.application.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Node;
import com.bettercompute.domain.market.PoolId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A pool's nodes added and removed. Added nodes are named {@code <site>-<class>-<n>} after the highest
 * number in use. Removal takes the nodes that cost the book least first — free, then out of service,
 * then draining, then idle grants, then running gangs, newest grant first — and a gang on a removed
 * node is revoked as the rules say ({@link Market#removeNode}). Block nodes are never taken.
 */
final class Supply {
    private Supply() {
    }

    /** Nodes the pool sells or could sell: every node that is not in a tenant's base load block. */
    static List<Node> marketNodes(Market market, PoolId pool) {
        List<Node> out = new ArrayList<>();
        for (Node n : market.nodes(pool)) {
            if (n.blockClusterId() == null) {
                out.add(n);
            }
        }
        return out;
    }

    static List<String> add(Market market, PoolId pool, int count) {
        int highest = 0;
        String prefix = pool.site() + "-" + pool.nodeClass() + "-";
        for (Node n : market.nodes(pool)) {
            if (n.id().startsWith(prefix)) {
                try {
                    highest = Math.max(highest, Integer.parseInt(n.id().substring(prefix.length())));
                } catch (NumberFormatException e) {
                    // a node named otherwise (by an older catalog or by hand) keeps its name and no number
                }
            }
        }
        List<String> added = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            String id = prefix + String.format("%04d", highest + i);
            market.addNode(id, pool);
            added.add(id);
        }
        return added;
    }

    static List<String> remove(Market market, PoolId pool, int count, Instant at, String field) {
        List<Node> candidates = marketNodes(market, pool);
        if (count > candidates.size()) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "pool " + pool + " has " + candidates.size()
                    + " market nodes; " + count + " cannot be removed",
                    Map.of("fields", List.of(Map.of("field", field, "problem", "is more than the pool's "
                            + candidates.size() + " market nodes"))));
        }
        candidates.sort(Comparator.comparingInt(Supply::cost)
                .thenComparing(n -> n.grant() == null ? Instant.MIN : n.grant().grantedAt(), Comparator.reverseOrder())
                .thenComparing(Node::id, Comparator.reverseOrder()));
        List<String> removed = new ArrayList<>();
        for (Node n : candidates.subList(0, count)) {
            market.removeNode(n.id(), at);
            removed.add(n.id());
        }
        return removed;
    }

    /** Sizes the pool's market nodes to {@code nodes}. */
    static void resize(Market market, PoolId pool, int nodes, Instant at) {
        int now = marketNodes(market, pool).size();
        if (nodes > now) {
            add(market, pool, nodes - now);
        } else if (nodes < now) {
            remove(market, pool, now - nodes, at, "nodes");
        }
    }

    private static int cost(Node n) {
        if (!n.inService()) {
            return 1;
        }
        if (n.grant() == null) {
            return n.drainingUntil() == null ? 0 : 2;
        }
        return n.grant().idle() ? 3 : 4;
    }
}
