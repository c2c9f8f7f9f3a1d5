package com.bettercompute.domain.market;

/** {@code BidTooLow}: nothing clears below the pool's reserve; a zero (or missing) limit never clears. */
public final class BidTooLowPolicy {
    private BidTooLowPolicy() {
    }

    public static boolean tooLow(long limit, long reserve) {
        return limit == 0 || limit < reserve;
    }
}
