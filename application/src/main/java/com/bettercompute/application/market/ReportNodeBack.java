package com.bettercompute.application.market;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Node;
import com.bettercompute.domain.market.NodeGrant;
import java.time.Clock;
import java.util.Objects;

/**
 * Health checks cleared a node: it is uncordoned and returns as idle capacity of the cluster that
 * lost it (usual idle grace), or as free supply. Idempotent for a node in service.
 */
public final class ReportNodeBack {
    public record Command(String nodeId) {
    }

    private final MarketInput input;

    /** For a market no one else writes (the simulator's): no transaction, no outbox. */
    public ReportNodeBack(MarketRepository markets, Clock clock) {
        this.input = MarketInput.untransacted(markets, clock);
    }

    /**
     * As the live server runs it: load, change and save in one transaction, the market locked meanwhile,
     * with the outbox event {@code market.node.back} when the node's state changed.
     */
    public ReportNodeBack(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    public void report(Command command) {
        input.run((market, at) -> {
            Node node = market.node(command.nodeId());
            boolean changes = !node.inService();
            NodeGrant grant = node.grant();
            market.nodeBack(command.nodeId(), at);
            // the cluster it was granted to (a node back returns to the cluster that lost it), or whose block it is in
            NodeGrant now = grant != null ? grant : node.grant();
            String clusterId = now != null ? now.clusterId() : node.blockClusterId();
            return MarketInput.Done.of(null, changes ? MarketOutboxEvents.input(market, "market.node.back", clusterId,
                    command.nodeId(), at, "nodeId", command.nodeId(), "pool", node.pool().toString(),
                    "clusterId", clusterId) : null);
        });
    }
}
