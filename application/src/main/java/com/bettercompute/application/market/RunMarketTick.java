package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.PoolFailure;
import com.bettercompute.domain.market.TickOutcome;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One market tick at the clock's instant, in one transaction: load the market (locked until commit),
 * clear every pool and bill, record the charges, save what changed, append the feed and the outbox
 * events. Only after the commit are the decisions applied in the clusters, so a crash at any moment
 * either loses the whole tick (the next one decides again from the saved state) or keeps all of it. A
 * pool whose clearing failed is logged and reported in the outcome; the other pools cleared.
 */
public final class RunMarketTick {
    private static final Logger LOG = LoggerFactory.getLogger(RunMarketTick.class);

    private final Transactions transactions;
    private final MarketRepository markets;
    private final MarketLedger ledger;
    private final MarketFeed feed;
    private final EventOutbox outbox;
    private final MarketEffects effects;
    private final Clock clock;

    public RunMarketTick(Transactions transactions, MarketRepository markets, MarketLedger ledger, MarketFeed feed,
                         EventOutbox outbox, MarketEffects effects, Clock clock) {
        this.transactions = Objects.requireNonNull(transactions);
        this.markets = Objects.requireNonNull(markets);
        this.ledger = Objects.requireNonNull(ledger);
        this.feed = Objects.requireNonNull(feed);
        this.outbox = Objects.requireNonNull(outbox);
        this.effects = Objects.requireNonNull(effects);
        this.clock = Objects.requireNonNull(clock);
    }

    public TickOutcome run() {
        TickOutcome outcome = transactions.inTransaction(() -> {
            Market market = markets.load();
            TickOutcome o = market.tick(clock.instant());
            ledger.record(o.charges());
            markets.save(market);
            feed.append(o.feed());
            outbox.appendAll(MarketOutboxEvents.of(market, o.events(), o.feed()));
            return o;
        });
        effects.apply(outcome.events());
        for (PoolFailure failure : outcome.failures()) {
            LOG.error("market tick at {}: pool {} failed to clear and was left as it stood: {}",
                    outcome.at(), failure.pool(), failure.error());
        }
        return outcome;
    }
}
