package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.MarketRequest;
import java.time.Clock;
import java.util.Objects;

/**
 * The job was deleted: its request leaves the queue or the market. Nodes it held stay with the
 * cluster under the minimum hold and idle grace, like those of an ended job.
 */
public final class WithdrawMarketRequest {
    public record Command(String jobId) {
    }

    private final MarketInput input;

    /**
     * As the live server runs it: one transaction, the market locked meanwhile, with the outbox event
     * {@code market.request.withdrawn}.
     */
    public WithdrawMarketRequest(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    /** @throws com.bettercompute.domain.DomainException NOT_FOUND when the job has no open request */
    public void withdraw(Command command) {
        input.run((market, at) -> {
            MarketRequest request = market.openRequest(command.jobId());
            market.endJob(command.jobId(), at);
            return MarketInput.Done.of(null, MarketOutboxEvents.withdrawn(market, request, at));
        });
    }
}
