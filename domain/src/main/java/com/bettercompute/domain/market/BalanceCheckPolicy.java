package com.bettercompute.domain.market;

import java.time.Duration;

/**
 * {@code BalanceTooLow}: a waiting request bids only if its tenant's balance covers
 * {@code horizon × limit × GPUs} on top of what the tenant's running grants cost over the same
 * horizon. Each waiting request is checked on its own against that sum.
 */
public final class BalanceCheckPolicy {
    private BalanceCheckPolicy() {
    }

    /** What {@code gpus} GPUs cost over {@code horizon} at {@code microsPerGpuHour}, in micro-dollars. */
    public static long costOver(Duration horizon, long microsPerGpuHour, long gpus) {
        return Math.multiplyExact(Math.multiplyExact(microsPerGpuHour, gpus), horizon.toSeconds()) / 3600;
    }

    /** Whether the balance funds the request; all amounts in micro-dollars. */
    public static boolean covers(long balance, long runningCostOverHorizon, Duration horizon, long limit, long gpus) {
        return balance >= runningCostOverHorizon + costOver(horizon, limit, gpus);
    }

    /** A running gang outside its window loses its nodes at once when its tenant's balance has run out. */
    public static boolean ranOut(long balance) {
        return balance <= 0;
    }
}
