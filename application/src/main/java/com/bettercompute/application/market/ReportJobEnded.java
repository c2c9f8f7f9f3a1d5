package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.MarketRequest;
import java.time.Clock;
import java.util.Objects;

/** A job finished: its gang's nodes become idle nodes of the cluster (minimum hold, then idle grace). */
public final class ReportJobEnded {
    public record Command(String jobId) {
    }

    private final MarketInput input;

    /**
     * As the live server runs it: one transaction, the market locked meanwhile, with the outbox event
     * {@code market.job.ended}.
     */
    public ReportJobEnded(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.input = new MarketInput(transactions, markets, Objects.requireNonNull(outbox), clock);
    }

    /** @throws com.bettercompute.domain.DomainException NOT_FOUND when the job has no open request */
    public void report(Command command) {
        input.run((market, at) -> {
            MarketRequest request = market.openRequest(command.jobId());
            market.endJob(command.jobId(), at);
            return MarketInput.Done.of(null, MarketOutboxEvents.jobEnded(market, request, at));
        });
    }
}
