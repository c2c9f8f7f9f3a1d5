package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import java.time.Clock;
import java.util.Objects;

/**
 * A node left the market for good: the operator removed it, or a granted node left its tenant's
 * cluster (after Provisioned=True, say). A gang on it ends: Failed=True (MarketRevoked), its other
 * nodes released, its job requeued as a new request at its current limit; no replacement is owed.
 * The events come out with the next tick's.
 */
public final class ReportNodeLeft {
    public record Command(String nodeId) {
    }

    private final MarketInput input;

    /**
     * As the live server runs it: load, change and save in one transaction, the market locked meanwhile,
     * with the outbox event {@code market.node.left} when the node's state changed.
     */
    public ReportNodeLeft(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    public void report(Command command) {
        input.nodeFact(command.nodeId(), "market.node.left", node -> true,
                (market, at) -> market.removeNode(command.nodeId(), at));
    }
}
