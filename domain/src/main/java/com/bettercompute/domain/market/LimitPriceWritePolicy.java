package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.util.Map;

/**
 * Limit price writes: a limit below the pool's reserve is refused at write time with
 * {@code INVALID_INPUT} and {@code details.reason = "bid-too-low"}; a standing limit that a raised
 * reserve has passed reads {@code bid_too_low: true}. A cluster spans pools, so a cluster-wide limit
 * is checked against the lowest reserve of the pools it could bid in.
 */
public final class LimitPriceWritePolicy {
    private LimitPriceWritePolicy() {
    }

    public static void checkWrite(Money limit, Money reserve, String pool) {
        if (limit.compareTo(Money.MAX_PRICE) > 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a limit price is at most " + Money.MAX_PRICE
                    + " USD per GPU-hour", Map.of("reason", "limit-too-high", "max", Money.MAX_PRICE.toString()));
        }
        if (BidTooLowPolicy.tooLow(limit.micros(), reserve.micros())) {
            throw new DomainException(ErrorCode.INVALID_INPUT,
                    "limit price " + limit + " is below the reserve " + reserve + " of " + pool + " and would never clear",
                    Map.of("reason", "bid-too-low", "limit", limit.toString(), "reserve", reserve.toString(),
                            "pool", pool));
        }
    }

    /** The {@code bid_too_low} read of a standing limit. */
    public static boolean bidTooLow(Money limit, Money reserve) {
        return limit == null || BidTooLowPolicy.tooLow(limit.micros(), reserve.micros());
    }
}
