package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import java.time.Clock;

/**
 * A node left the market for good: the operator removed it, or a granted node left its tenant's
 * cluster (after Provisioned=True, say). A gang on it ends: Failed=True (MarketRevoked), its other
 * nodes released, its job requeued as a new request at its current limit; no replacement is owed.
 * The events come out with the next tick's.
 */
public final class ReportNodeLeft {
    public record Command(String nodeId) {
    }

    private final MarketRepository markets;
    private final Clock clock;

    public ReportNodeLeft(MarketRepository markets, Clock clock) {
        this.markets = markets;
        this.clock = clock;
    }

    public void report(Command command) {
        Market market = markets.load();
        market.removeNode(command.nodeId(), clock.instant());
        markets.save(market);
    }
}
