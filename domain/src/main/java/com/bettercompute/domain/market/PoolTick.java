package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * One entry of the market feed: a pool at a tick. Counts are in nodes. {@code price} is null when
 * nothing cleared. {@code demand} is the nodes of every filed request (bidding, gated or holding);
 * {@code waiting} the nodes of filed requests not admitted; {@code granted} the nodes held by
 * tenants (gangs and idle nodes).
 */
public record PoolTick(Instant at, PoolId pool, Money price, Money reserve, int supply, int free, int demand,
                       int waiting, int granted) {
}
