package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.Transactions;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import java.util.Map;

/**
 * Withdraws a limit price: a job's falls back to its cluster's; a cluster's leaves its jobs bidding
 * zero. A running gang whose limit falls so is reclaimed at once at the next tick once its window
 * voids (its own side).
 */
public final class WithdrawLimitPrice {
    /** @param jobId null for the cluster-wide limit */
    public record Command(String clusterId, String jobId) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;

    /** With the load and the save in one transaction, the market locked meanwhile. */
    public WithdrawLimitPrice(Transactions transactions, MarketRepository markets) {
        this.transactions = transactions;
        this.markets = markets;
    }

    public void withdraw(Command command) {
        transactions.inTransaction(() -> {
            withdrawInTransaction(command);
            return null;
        });
    }

    private void withdrawInTransaction(Command command) {
        Market market = markets.load();
        market.cluster(command.clusterId());
        if (command.jobId() == null) {
            market.setClusterLimit(command.clusterId(), null);
        } else {
            if (!market.openRequest(command.jobId()).clusterId().equals(command.clusterId())) {
                throw new DomainException(ErrorCode.NOT_FOUND, "job " + command.jobId() + " is not in cluster "
                        + command.clusterId(), Map.of("jobId", command.jobId()));
            }
            market.setJobLimit(command.jobId(), null);
        }
        markets.save(market);
    }
}
