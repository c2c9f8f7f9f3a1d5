package com.bettercompute.application.market;

import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The ledger in memory, idempotent by charge key like the real one. */
public final class InMemoryMarketLedger implements MarketLedger {
    private final Map<Charge.Key, Charge> entries = new LinkedHashMap<>();
    private final Map<String, Long> byTenant = new HashMap<>();

    @Override
    public int record(List<Charge> charges) {
        int added = 0;
        for (Charge c : charges) {
            if (entries.putIfAbsent(c.key(), c) == null) {
                byTenant.merge(c.tenantId(), c.amount().micros(), Long::sum);
                added++;
            }
        }
        return added;
    }

    @Override
    public Money chargedTo(String tenantId) {
        return Money.ofMicros(byTenant.getOrDefault(tenantId, 0L));
    }

    public List<Charge> entries() {
        return new ArrayList<>(entries.values());
    }
}
