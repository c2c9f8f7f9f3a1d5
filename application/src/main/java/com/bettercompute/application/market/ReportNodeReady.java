package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.NodeGrant;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * A granted node is ready in its tenant's cluster: its minimum hold and protection window start now
 * and it bills from now. When the last node of a gang is ready the gang is Provisioned=True, applied
 * in the cluster at once (the job starts) rather than at the next tick. Idempotent.
 */
public final class ReportNodeReady {
    public record Command(String nodeId) {
    }

    private final MarketInput input;
    private final MarketEffects effects;

    /**
     * As the live server runs it: one transaction, the market locked meanwhile, with the outbox events
     * {@code market.node.ready} (when the node was granted and not ready yet) and
     * {@code market.request.provisioned} (when it completed its gang).
     */
    public ReportNodeReady(Transactions transactions, MarketRepository markets, EventOutbox outbox,
                           MarketEffects effects, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
        this.effects = Objects.requireNonNull(effects);
    }

    /** @return the events applied (the gang's reason, GangProvisioned when the gang is complete) */
    public List<MarketEvent> report(Command command) {
        List<MarketEvent> events = input.run((market, at) -> {
            NodeGrant grant = market.node(command.nodeId()).grant();
            boolean fresh = grant != null && grant.readyAt() == null;
            List<MarketEvent> caused = market.nodeReady(command.nodeId(), at);
            return new MarketInput.Done<>(caused, fresh ? MarketOutboxEvents.input(market, "market.node.ready",
                    grant.clusterId(), command.nodeId(), at, "nodeId", command.nodeId(), "clusterId", grant.clusterId(),
                    "grantId", grant.id(), "requestId", grant.requestId()) : null, caused);
        }).result();
        effects.apply(events);
        return events;
    }
}
