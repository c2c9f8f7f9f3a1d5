package com.bettercompute.application.market;

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

    private final MarketRepository markets;

    public ChangeReservePrice(MarketRepository markets) {
        this.markets = markets;
    }

    public void change(Command command) {
        Market market = markets.load();
        market.changeReserve(PoolId.parse(command.pool()), Money.parse(command.reserve()));
        markets.save(market);
    }
}
