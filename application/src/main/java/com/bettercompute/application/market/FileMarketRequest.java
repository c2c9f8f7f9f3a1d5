package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PriorityClass;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * Kueue files a job's request: its gang of GPUs in one pool, its own limit price label if any, its
 * priority class. It files with the market at once while the max cluster size allows, else waits in
 * the cluster's queue.
 */
public final class FileMarketRequest {
    /**
     * @param limitLabel the job's {@code nationalcompute.com/limit-price} label as written, null when absent;
     *                   {@code "0"} is a real zero
     * @param priorityLabel the {@code kueue.x-k8s.io/priority-class} label, null when absent
     */
    public record Command(String jobId, String clusterId, String pool, int gpus, String limitLabel,
                          String priorityLabel) {
        public Command {
            if (jobId == null || clusterId == null || pool == null) {
                throw new DomainException(ErrorCode.INVALID_INPUT, "jobId, clusterId and pool are required",
                        Map.of("jobId", String.valueOf(jobId), "clusterId", String.valueOf(clusterId),
                                "pool", String.valueOf(pool)));
            }
        }
    }

    private final MarketInput input;

    /**
     * As the live server runs it: load, file and save in one transaction, the market locked meanwhile,
     * with the outbox event {@code market.request.received}.
     */
    public FileMarketRequest(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    /**
     * @throws DomainException INVALID_INPUT when the limit label is not a number, is negative, has more
     *                         than six decimals or is above the maximum ({@code details.reason} says which)
     */
    public RequestView file(Command command) {
        Money limit = LimitPriceWritePolicy.parseJobLabel(command.limitLabel());
        PoolId pool = PoolId.parse(command.pool());
        PriorityClass priority = PriorityClass.fromLabel(command.priorityLabel());
        return input.run((market, at) -> {
            var request = market.file(new JobDemand(command.jobId(), command.clusterId(), pool, command.gpus(), limit,
                    priority), at);
            return MarketInput.Done.of(RequestView.of(request), MarketOutboxEvents.received(market, request, at));
        }).result();
    }
}
