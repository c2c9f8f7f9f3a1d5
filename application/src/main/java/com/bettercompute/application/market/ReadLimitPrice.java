package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;

/** {@code GET /api/k8s/bid}: the standing limit and whether the market moved past it ({@code bid_too_low}). */
public final class ReadLimitPrice {
    /** @param jobId null for the cluster-wide limit */
    public record Query(String clusterId, String jobId) {
    }

    private final MarketRepository markets;

    public ReadLimitPrice(MarketRepository markets) {
        this.markets = markets;
    }

    public LimitPriceView read(Query query) {
        Market market = markets.load();
        Money limit = query.jobId() == null ? market.cluster(query.clusterId()).limit()
                : market.openRequest(query.jobId()).effectiveLimit();
        Money reserve = LimitPrices.reserveFor(market, query.clusterId(), query.jobId());
        return new LimitPriceView(query.clusterId(), query.jobId(), limit, reserve,
                LimitPriceWritePolicy.bidTooLow(limit, reserve));
    }
}
