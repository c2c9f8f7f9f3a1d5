package com.bettercompute.application.market;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Market;
import java.time.Clock;

/**
 * Health checks cordoned a node: billing for it stops now and its cluster is owed a replacement at
 * the locked rate for what remains of the window. A cordon by the tenant is not reported here.
 * Idempotent: a node already out of service is left as it is.
 */
public final class ReportNodeOutOfService {
    public record Command(String nodeId) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final Clock clock;

    public ReportNodeOutOfService(MarketRepository markets, Clock clock) {
        this(Untransacted.INSTANCE, markets, clock);
    }

    /** With the load and the save in one transaction, the market locked meanwhile, as the live server runs it. */
    public ReportNodeOutOfService(Transactions transactions, MarketRepository markets, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.clock = clock;
    }

    public void report(Command command) {
        transactions.inTransaction(() -> {
            Market market = markets.load();
            market.nodeOutOfService(command.nodeId(), clock.instant());
            markets.save(market);
            return null;
        });
    }
}
