package com.bettercompute.domain.market;

/**
 * The tick's price: {@code max(reserve, lowest limit accepted)}, or null when nothing is accepted.
 * Every accepted limit is at least the reserve and at least the lowest, so nobody pays above its limit.
 */
public final class ClearingPricePolicy {
    private ClearingPricePolicy() {
    }

    /** @param lowestAcceptedLimit -1 when nothing was accepted */
    public static Money price(long reserve, long lowestAcceptedLimit) {
        return lowestAcceptedLimit < 0 ? null : Money.ofMicros(Math.max(reserve, lowestAcceptedLimit));
    }
}
