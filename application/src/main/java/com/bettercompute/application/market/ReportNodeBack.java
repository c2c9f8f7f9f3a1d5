package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
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

    /**
     * As the live server runs it: load, change and save in one transaction, the market locked meanwhile,
     * with the outbox event {@code market.node.back} when the node's state changed.
     */
    public ReportNodeBack(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    public void report(Command command) {
        input.nodeFact(command.nodeId(), "market.node.back", node -> !node.inService(),
                (market, at) -> market.nodeBack(command.nodeId(), at));
    }
}
