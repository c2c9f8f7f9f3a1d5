package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.PoolFailure;
import com.bettercompute.domain.market.TickOutcome;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One market tick at the clock's instant: clear every pool, bill, then record charges, save the
 * market, publish the feed and apply the decisions in the clusters. A pool whose clearing failed is
 * logged (the market counts it); the other pools cleared.
 */
public final class RunMarketTick {
    private static final Logger LOG = LoggerFactory.getLogger(RunMarketTick.class);

    private final MarketRepository markets;
    private final MarketLedger ledger;
    private final MarketFeed feed;
    private final MarketEffects effects;
    private final Clock clock;

    public RunMarketTick(MarketRepository markets, MarketLedger ledger, MarketFeed feed, MarketEffects effects,
                         Clock clock) {
        this.markets = Objects.requireNonNull(markets);
        this.ledger = Objects.requireNonNull(ledger);
        this.feed = Objects.requireNonNull(feed);
        this.effects = Objects.requireNonNull(effects);
        this.clock = Objects.requireNonNull(clock);
    }

    public TickOutcome run() {
        Market market = markets.load();
        TickOutcome outcome = market.tick(clock.instant());
        // charges first: they are idempotent by key, so a crash before the save only replays them
        ledger.record(outcome.charges());
        markets.save(market);
        feed.append(outcome.feed());
        effects.apply(outcome.events());
        for (PoolFailure failure : outcome.failures()) {
            LOG.error("market tick at {}: pool {} failed to clear and was left as it stood ({} failures so far): {}",
                    outcome.at(), failure.pool(), market.clearingFailures(), failure.error());
        }
        return outcome;
    }
}
