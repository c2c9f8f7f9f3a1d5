package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import java.time.Clock;

/**
 * Health checks cleared a node: it is uncordoned and returns as idle capacity of the cluster that
 * lost it (usual idle grace), or as free supply. Idempotent for a node in service.
 */
public final class ReportNodeBack {
    public record Command(String nodeId) {
    }

    private final MarketRepository markets;
    private final Clock clock;

    public ReportNodeBack(MarketRepository markets, Clock clock) {
        this.markets = markets;
        this.clock = clock;
    }

    public void report(Command command) {
        Market market = markets.load();
        market.nodeBack(command.nodeId(), clock.instant());
        markets.save(market);
    }
}
