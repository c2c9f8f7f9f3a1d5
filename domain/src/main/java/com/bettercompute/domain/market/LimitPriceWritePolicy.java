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
        checkInRange(limit);
        if (BidTooLowPolicy.tooLow(limit.micros(), reserve.micros())) {
            throw new DomainException(ErrorCode.INVALID_INPUT,
                    "limit price " + limit + " is below the reserve " + reserve + " of " + pool + " and would never clear",
                    Map.of("reason", "bid-too-low", "limit", limit.toString(), "reserve", reserve.toString(),
                            "pool", pool));
        }
    }

    /**
     * Any limit the market stores (a cluster's, a job's) is at most {@link Money#MAX_PRICE}: above it
     * the tick could not order the bid.
     */
    public static void checkInRange(Money limit) {
        if (limit != null && limit.compareTo(Money.MAX_PRICE) > 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a limit price is at most " + Money.MAX_PRICE
                    + " USD per GPU-hour, not " + limit, Map.of("reason", "limit-too-high", "max",
                    Money.MAX_PRICE.toString(), "limit", limit.toString()));
        }
    }

    /**
     * A job's {@code nationalcompute.com/limit-price} label as written, read when its request is filed:
     * null when absent; a number that is negative, has more than six decimals, is above the maximum or
     * is not a number is refused with a reason the tenant can read.
     */
    public static Money parseJobLabel(String label) {
        if (label == null) {
            return null;
        }
        Money limit;
        try {
            limit = Money.parse(label);
        } catch (DomainException e) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "the job's " + LABEL + " label " + e.getMessage(),
                    Map.of("field", LABEL, "reason", String.valueOf(e.details().get("reason")), "value", label));
        }
        try {
            checkInRange(limit);
        } catch (DomainException e) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "the job's " + LABEL + " label: " + e.getMessage(),
                    Map.of("field", LABEL, "reason", "limit-too-high", "value", label));
        }
        return limit;
    }

    /** The label a job sets its own limit price with. */
    public static final String LABEL = "nationalcompute.com/limit-price";

    /** The {@code bid_too_low} read of a standing limit. */
    public static boolean bidTooLow(Money limit, Money reserve) {
        return limit == null || BidTooLowPolicy.tooLow(limit.micros(), reserve.micros());
    }
}
