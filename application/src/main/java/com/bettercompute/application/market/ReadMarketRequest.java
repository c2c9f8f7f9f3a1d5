package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.domain.market.Market;

/** Reads a job's open request: its phase, reason and granted nodes. */
public final class ReadMarketRequest {
    private final MarketRepository markets;

    public ReadMarketRequest(MarketRepository markets) {
        this.markets = markets;
    }

    /** @throws com.bettercompute.domain.DomainException NOT_FOUND when the job has no open request */
    public RequestView read(String jobId) {
        Market market = markets.load();
        return RequestView.of(market.openRequest(jobId));
    }
}
