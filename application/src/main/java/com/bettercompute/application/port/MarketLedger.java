package com.bettercompute.application.port;

import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Instant;
import java.util.List;

/**
 * The usage ledger of market charges, keyed by (node grant, interval start), and the credit top-ups,
 * keyed by their idempotency key. Writes take part in the caller's transaction.
 */
public interface MarketLedger {
    /**
     * Records charges. Idempotent per {@link Charge#key()}: a charge whose key is already recorded is
     * ignored, so replaying a tick after a crash never bills twice.
     *
     * @return how many charges were new
     */
    int record(List<Charge> charges);

    /** The sum of a tenant's recorded charges; zero for an unknown tenant. */
    Money chargedTo(String tenantId);

    /** A tenant's latest charges, newest (by interval start) first, at most {@code limit}. */
    List<Charge> latest(String tenantId, int limit);

    /** A tenant's charges summed per cluster, pool and hour (the hour the interval starts in), oldest first. */
    List<HourlyCharge> hourly(String tenantId);

    /** Charges of one cluster and pool in one hour: the amount and the GPU-seconds billed. */
    record HourlyCharge(String clusterId, PoolId pool, Instant hourStart, Money amount, long gpuSeconds) {
    }

    /**
     * Records a credit top-up once per idempotency key.
     *
     * @return true when the key is new (the caller then credits the market in the same transaction);
     *         false when it was recorded before (nothing is written)
     */
    boolean credit(CreditTopUp topUp);

    /** A tenant's top-ups, newest first, at most {@code limit}. */
    List<CreditTopUp> credits(String tenantId, int limit);

    /** A credit top-up by the operator. */
    record CreditTopUp(String tenantId, String idempotencyKey, Money amount, String note, Instant at) {
    }
}
