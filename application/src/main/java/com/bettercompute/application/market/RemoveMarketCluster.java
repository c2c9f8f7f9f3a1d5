package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import java.util.Map;

/**
 * {@code DELETE /api/operator/market/clusters?cluster_id=}: takes a cluster out of the market. Only an
 * empty cluster leaves ({@link Market#removeCluster}): {@code INVALID_STATE} names what it still holds.
 */
public final class RemoveMarketCluster {
    private final Transactions transactions;
    private final MarketRepository markets;

    public RemoveMarketCluster(Transactions transactions, MarketRepository markets) {
        this.transactions = transactions;
        this.markets = markets;
    }

    public void remove(String clusterId) {
        transactions.inTransaction(() -> {
            Market market = markets.load();
            if (!market.hasCluster(clusterId)) {
                throw new DomainException(ErrorCode.NOT_FOUND, "Cluster " + clusterId + " is not in the market.",
                        Map.of("field", "cluster_id"));
            }
            market.removeCluster(clusterId);
            markets.save(market);
            return null;
        });
    }
}
