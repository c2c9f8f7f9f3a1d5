package com.bettercompute.application.market;

import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import java.util.List;

/** The usage ledger of market charges, keyed by (node grant, interval start). */
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
}
