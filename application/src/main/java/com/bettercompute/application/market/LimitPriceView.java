package com.bettercompute.application.market;

import com.bettercompute.domain.market.Money;

/**
 * The limit price read: the standing limit (null when none: the jobs bid zero), the reserve it is
 * compared with, and {@code bidTooLow} ({@code bid_too_low} on the wire) when a raised reserve passed it.
 */
public record LimitPriceView(String clusterId, String jobId, Money limit, Money reserve, boolean bidTooLow) {
}
