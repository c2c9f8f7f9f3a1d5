package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
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

    private final MarketRepository markets;
    private final MarketEffects effects;
    private final Clock clock;

    public ReportNodeReady(MarketRepository markets, MarketEffects effects, Clock clock) {
        this.markets = Objects.requireNonNull(markets);
        this.effects = Objects.requireNonNull(effects);
        this.clock = Objects.requireNonNull(clock);
    }

    /** @return the events applied (the gang's reason, GangProvisioned when the gang is complete) */
    public List<MarketEvent> report(Command command) {
        Market market = markets.load();
        List<MarketEvent> events = market.nodeReady(command.nodeId(), clock.instant());
        markets.save(market);
        effects.apply(events);
        return events;
    }
}
