package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;
import java.time.Clock;

/**
 * The job was deleted: its request leaves the queue or the market. Nodes it held stay with the
 * cluster under the minimum hold and idle grace, like those of an ended job.
 */
public final class WithdrawMarketRequest {
    public record Command(String jobId) {
    }

    private final MarketRepository markets;
    private final Clock clock;

    public WithdrawMarketRequest(MarketRepository markets, Clock clock) {
        this.markets = markets;
        this.clock = clock;
    }

    /** @throws com.bettercompute.domain.DomainException NOT_FOUND when the job has no open request */
    public void withdraw(Command command) {
        Market market = markets.load();
        market.endJob(command.jobId(), clock.instant());
        markets.save(market);
    }
}
