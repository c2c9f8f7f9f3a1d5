package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Pool;

/** Which reserve a limit is compared with, at write time and on read. */
final class LimitPrices {
    private LimitPrices() {
    }

    /**
     * A job's limit faces its pool's reserve. A cluster-wide limit faces the highest reserve among the
     * pools its open requests are in; with none open, the lowest reserve of any pool (the cheapest
     * place it could bid), so a write is refused only when it could never clear anywhere.
     */
    static Money reserveFor(Market market, String clusterId, String jobId) {
        if (jobId != null) {
            return market.pool(market.openRequest(jobId).pool()).reserve();
        }
        market.cluster(clusterId);
        Money highest = null;
        for (MarketRequest r : market.openRequests()) {
            if (r.clusterId().equals(clusterId) && !r.subNode()) {
                Money reserve = market.pool(r.pool()).reserve();
                highest = highest == null || reserve.compareTo(highest) > 0 ? reserve : highest;
            }
        }
        if (highest != null) {
            return highest;
        }
        Money lowest = null;
        for (Pool p : market.pools()) {
            lowest = lowest == null || p.reserve().compareTo(lowest) < 0 ? p.reserve() : lowest;
        }
        return lowest == null ? Money.ZERO : lowest;
    }

    /** The write-time check for a cluster-wide limit faces the lowest reserve of any pool. */
    static Money lowestReserve(Market market) {
        Money lowest = null;
        for (Pool p : market.pools()) {
            lowest = lowest == null || p.reserve().compareTo(lowest) < 0 ? p.reserve() : lowest;
        }
        return lowest == null ? Money.ZERO : lowest;
    }
}
