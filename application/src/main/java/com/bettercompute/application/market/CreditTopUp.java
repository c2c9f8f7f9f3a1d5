package com.bettercompute.application.market;

import com.bettercompute.domain.market.Money;
import java.time.Instant;

/** A credit top-up of a tenant (an organization), recorded once per idempotency key. */
public record CreditTopUp(String key, String tenantId, Money amount, String note, Instant at) {
}
