package com.bettercompute.domain.market;

import java.time.Duration;

/**
 * Step 1 of a tick, reading demand: a waiting request gets the reason of the first rule that holds,
 * {@code BalanceTooLow} then {@code BidTooLow}; null means it bids.
 */
public final class DemandGatePolicy {
    private DemandGatePolicy() {
    }

    public static Reason gate(long balance, long runningCost, Duration horizon, long limit, long gpus, long reserve) {
        if (!BalanceCheckPolicy.covers(balance, runningCost, horizon, limit, gpus)) {
            return Reason.BALANCE_TOO_LOW;
        }
        if (BidTooLowPolicy.tooLow(limit, reserve)) {
            return Reason.BID_TOO_LOW;
        }
        return null;
    }
}
