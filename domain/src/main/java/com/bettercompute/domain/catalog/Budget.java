package com.bettercompute.domain.catalog;

import java.math.BigDecimal;

/** A tenant's budget in USD; exhausted once what was spent reaches the limit. */
public record Budget(String id, String tenantId, BigDecimal limitUsd, BigDecimal spentUsd) {
    public boolean exhausted() {
        return spentUsd.compareTo(limitUsd) >= 0;
    }
}
