package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketEffects;

import com.bettercompute.domain.market.MarketEvent;
import java.util.ArrayList;
import java.util.List;

/** Keeps the events the market asked the clusters to apply. */
public final class RecordingMarketEffects implements MarketEffects {
    private final List<MarketEvent> applied = new ArrayList<>();

    @Override
    public void apply(List<MarketEvent> events) {
        applied.addAll(events);
    }

    public List<MarketEvent> applied() {
        return applied;
    }

    public <E extends MarketEvent> List<E> applied(Class<E> type) {
        return applied.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
