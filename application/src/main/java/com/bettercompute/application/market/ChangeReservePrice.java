package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;

/**
 * The operator sets a pool's reserve price. Standing limits it passes are not refused: they read
 * {@code bid_too_low}, their waiting requests read {@code BidTooLow}, and running gangs below it are
 * reclaimed at once once outside their window.
 */
public final class ChangeReservePrice {
    public record Command(String pool, String reserve) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;

    /** With the load and the save in one transaction, the market locked meanwhile, as the live server runs it. */
    public ChangeReservePrice(Transactions transactions, MarketRepository markets) {
        this.transactions = transactions;
        this.markets = markets;
    }

    public void change(Command command) {
        transactions.inTransaction(() -> {
            Market market = markets.load();
            market.changeReserve(PoolId.parse(command.pool()), Money.parse(command.reserve()));
            markets.save(market);
            return null;
        });
    }
}
