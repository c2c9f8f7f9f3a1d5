package com.bettercompute.application.market;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Market;
import java.time.Clock;

/**
 * Health checks cleared a node: it is uncordoned and returns as idle capacity of the cluster that
 * lost it (usual idle grace), or as free supply. Idempotent for a node in service.
 */
public final class ReportNodeBack {
    public record Command(String nodeId) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final Clock clock;

    public ReportNodeBack(MarketRepository markets, Clock clock) {
        this(Untransacted.INSTANCE, markets, clock);
    }

    /** With the load and the save in one transaction, the market locked meanwhile, as the live server runs it. */
    public ReportNodeBack(Transactions transactions, MarketRepository markets, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.clock = clock;
    }

    public void report(Command command) {
        transactions.inTransaction(() -> {
            Market market = markets.load();
            market.nodeBack(command.nodeId(), clock.instant());
            markets.save(market);
            return null;
        });
    }
}
