package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.Transactions;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import java.util.Map;

/**
 * {@code PUT /api/k8s/bid}, or a job's {@code limit-price} label changed: sets the most the tenant
 * pays per GPU-hour. Read at the next tick. An increase never resets a protection window; a decrease
 * below the limit a gang started with voids its window.
 */
public final class SetLimitPrice {
    /** @param jobId null for the cluster-wide limit */
    public record Command(String clusterId, String jobId, String limit) {
        public Command {
            if (clusterId == null || limit == null) {
                throw new DomainException(ErrorCode.INVALID_INPUT, "clusterId and limit are required",
                        Map.of("clusterId", String.valueOf(clusterId)));
            }
        }
    }

    private final Transactions transactions;
    private final MarketRepository markets;

    /** With the load and the save in one transaction, the market locked meanwhile. */
    public SetLimitPrice(Transactions transactions, MarketRepository markets) {
        this.transactions = transactions;
        this.markets = markets;
    }

    /**
     * @throws DomainException INVALID_INPUT with {@code details.reason = "bid-too-low"} when the limit is
     *                         below the reserve it faces; NOT_FOUND for an unknown cluster or job
     */
    public LimitPriceView set(Command command) {
        return transactions.inTransaction(() -> setInTransaction(command));
    }

    private LimitPriceView setInTransaction(Command command) {
        Market market = markets.load();
        Money limit = Money.parse(command.limit());
        if (command.jobId() == null) {
            market.cluster(command.clusterId());
            LimitPriceWritePolicy.checkWrite(limit, LimitPrices.lowestReserve(market), "any pool");
            market.setClusterLimit(command.clusterId(), limit);
        } else {
            var request = market.openRequest(command.jobId());
            if (!request.clusterId().equals(command.clusterId())) {
                throw new DomainException(ErrorCode.NOT_FOUND, "job " + command.jobId() + " is not in cluster "
                        + command.clusterId(), Map.of("jobId", command.jobId()));
            }
            LimitPriceWritePolicy.checkWrite(limit, market.pool(request.pool()).reserve(), request.pool().toString());
            market.setJobLimit(command.jobId(), limit);
        }
        markets.save(market);
        Money reserve = LimitPrices.reserveFor(market, command.clusterId(), command.jobId());
        return new LimitPriceView(command.clusterId(), command.jobId(), limit, reserve,
                LimitPriceWritePolicy.bidTooLow(limit, reserve));
    }
}
