package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import java.time.Clock;

/** A job finished: its gang's nodes become idle nodes of the cluster (minimum hold, then idle grace). */
public final class ReportJobEnded {
    public record Command(String jobId) {
    }

    private final MarketRepository markets;
    private final Clock clock;

    public ReportJobEnded(MarketRepository markets, Clock clock) {
        this.markets = markets;
        this.clock = clock;
    }

    /** @throws com.bettercompute.domain.DomainException NOT_FOUND when the job has no open request */
    public void report(Command command) {
        Market market = markets.load();
        market.endJob(command.jobId(), clock.instant());
        markets.save(market);
    }
}
