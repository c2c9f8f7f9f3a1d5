package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketSnapshot;

/**
 * The market kept as a snapshot, like a persistence adapter keeps it: every load is a fresh market
 * restored from the last save, so a use case that forgets to save loses its change, as it would in
 * production.
 */
public final class InMemoryMarketRepository implements MarketRepository {
    private MarketSnapshot saved;
    private int saves;

    public InMemoryMarketRepository(Market market) {
        this.saved = market.snapshot();
    }

    public InMemoryMarketRepository() {
        this(new Market());
    }

    @Override
    public Market load() {
        return Market.restore(saved);
    }

    @Override
    public void save(Market market) {
        this.saved = market.snapshot();
        saves++;
    }

    public int saves() {
        return saves;
    }
}
