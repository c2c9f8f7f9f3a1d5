package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;

/** The market held in memory; saves count, so tests can see a use case saved. */
public final class InMemoryMarketRepository implements MarketRepository {
    private Market market;
    private int saves;

    public InMemoryMarketRepository(Market market) {
        this.market = market;
    }

    public InMemoryMarketRepository() {
        this(new Market());
    }

    @Override
    public Market load() {
        return market;
    }

    @Override
    public void save(Market market) {
        this.market = market;
        saves++;
    }

    public int saves() {
        return saves;
    }
}
