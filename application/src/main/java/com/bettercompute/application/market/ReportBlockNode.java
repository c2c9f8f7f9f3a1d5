package com.bettercompute.application.market;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.Transactions;
import java.time.Clock;
import java.util.Objects;

/**
 * A base load block node joined or left its cluster, as the cluster shows it. Ready, it seats the
 * cluster's sub-node requests from the next tick on; gone after it was ready, what sat on it waits for the
 * block again. Idempotent: each fact writes its outbox event ({@code market.block-node.ready},
 * {@code market.block-node.left}, tenant: the block's cluster) only when it changed the node.
 */
public final class ReportBlockNode {
    private final MarketInput input;

    /** As the live server runs it: load, change and save in one transaction, the market locked meanwhile. */
    public ReportBlockNode(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    /** The block node is Ready in its cluster. */
    public void ready(String nodeId) {
        input.nodeFact(nodeId, "market.block-node.ready",
                node -> node.blockClusterId() != null && node.blockReadyAt() == null,
                (market, at) -> market.blockNodeReady(nodeId, at));
    }

    /** The block node, ready before, is gone from its cluster. */
    public void left(String nodeId) {
        input.nodeFact(nodeId, "market.block-node.left",
                node -> node.blockClusterId() != null && node.blockReadyAt() != null,
                (market, at) -> market.blockNodeLeft(nodeId));
    }
}
