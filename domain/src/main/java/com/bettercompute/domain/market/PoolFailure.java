package com.bettercompute.domain.market;

/** A pool whose clearing failed in a tick; the error as text, for the log. */
public record PoolFailure(PoolId pool, String error) {
}
