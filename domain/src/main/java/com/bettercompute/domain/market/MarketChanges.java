package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * What a persistence adapter writes after a change of the market: the few values that are not per request,
 * grant or node as a snapshot ({@code rest}: pools without their nodes, tenants, clusters, the idle order),
 * and of the requests, grants and nodes only those the market recorded as changed since the changes were
 * last cleared. Those three are the bulk of a book (a hundred thousand requests, tens of thousands of grants
 * and nodes, of which a few hundred move in a tick), so a save that encodes and compares only these costs
 * what changed, not the size of the book.
 *
 * @param rest       the snapshot without requests and grants, its pools without nodes
 * @param requests   the open requests filed or changed since the last clearing, in filing order
 * @param gone       the requests that left the market since then (closed or revoked); a request filed
 *                   and gone between two clearings is among them too, never in {@code requests}
 * @param nodes      the nodes added or changed since then, by id (a node holding a lost grant is always among
 *                   them: that grant's billing may have moved)
 * @param nodesGone  the ids of the nodes removed since then (none of them is in the market)
 * @param grants     the grants made or changed other than by billing since then, by id
 * @param billed     the grants whose billing cursor alone moved since then past what a restore works out from the
 *                   saved one (an entry opened, closed for good, or cut short; none of them is in {@code grants})
 * @param grantsGone the ids of the grants the market dropped since then (ended and billed to their end)
 */
public record MarketChanges(MarketSnapshot rest, List<MarketSnapshot.RequestState> requests, List<Gone> gone,
                            List<PoolNode> nodes, List<String> nodesGone, List<MarketSnapshot.GrantState> grants,
                            List<MarketSnapshot.GrantState> billed, List<String> grantsGone) {

    /**
     * A request that left the market: {@code revoked} when its job goes on as a later attempt; {@code last}
     * its state as it left (phase {@code REVOKED} or {@code CLOSED}, its last reason and message); {@code endedAt}
     * the instant the market decided it left (a revocation's own instant, at which its successor was filed), which
     * is what an adapter records as its end, never the time of the save.
     */
    public record Gone(String id, long sequence, boolean revoked, MarketSnapshot.RequestState last, Instant endedAt) {
    }

    /** A node's state with the pool it belongs to (the node's state alone does not say). */
    public record PoolNode(PoolId pool, MarketSnapshot.NodeState node) {
    }
}
