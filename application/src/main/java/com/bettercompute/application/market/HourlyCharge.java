package com.bettercompute.application.market;

import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Instant;

/**
 * A tenant's market charges summed per cluster, pool and UTC hour (of each charge's start):
 * {@code gpuSeconds} is the GPUs billed times the seconds they were billed for.
 */
public record HourlyCharge(String tenantId, String clusterId, PoolId pool, Instant hour, Money amount,
                           long gpuSeconds) {
}
