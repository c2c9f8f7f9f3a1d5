package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Node;
import java.time.Clock;
import java.util.Objects;

/**
 * Health checks cordoned a node: billing for it stops now and its cluster is owed a replacement at
 * the locked rate for what remains of the window. A cordon by the tenant is not reported here.
 * Idempotent: a node already out of service is left as it is.
 */
public final class ReportNodeOutOfService {
    public record Command(String nodeId) {
    }

    private final MarketInput input;

    /**
     * As the live server runs it: load, change and save in one transaction, the market locked meanwhile,
     * with the outbox event {@code market.node.out-of-service} when the node's state changed.
     */
    public ReportNodeOutOfService(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    public void report(Command command) {
        input.nodeFact(command.nodeId(), "market.node.out-of-service", Node::inService,
                (market, at) -> market.nodeOutOfService(command.nodeId(), at));
    }
}
