package com.bettercompute.application.market;

import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import java.util.List;
import java.util.Optional;

/**
 * The usage ledger of market charges, keyed by (node grant, interval start), and the credit top-ups,
 * keyed by their idempotency key. An adapter takes part in the {@code Transactions} transaction it is
 * called in.
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

    /** The top-up recorded under this idempotency key (keys are global, not per tenant), if any. */
    Optional<CreditTopUp> topUp(String key);

    /**
     * Records a top-up. The caller has checked {@link #topUp} in the same transaction, so a key already
     * recorded is a programming error (the adapter may refuse it).
     */
    void recordTopUp(CreditTopUp topUp);

    /** A tenant's latest charges, newest first (by start descending, then grant id); at most {@code limit}. */
    List<Charge> latestCharges(String tenantId, int limit);

    /** A tenant's latest top-ups, newest first (by time descending, then key); at most {@code limit}. */
    List<CreditTopUp> latestTopUps(String tenantId, int limit);

    /**
     * A tenant's charges summed per (cluster, pool, UTC hour of the charge's start), oldest hour first,
     * then cluster id, then pool; at most {@code limit} rows.
     */
    List<HourlyCharge> hourlyCharges(String tenantId, int limit);
}
