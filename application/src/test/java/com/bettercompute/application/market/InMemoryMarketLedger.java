package com.bettercompute.application.market;

import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The ledger in memory, idempotent by charge key and by top-up key like the real one. */
public final class InMemoryMarketLedger implements MarketLedger {
    private final Map<Charge.Key, Charge> entries = new LinkedHashMap<>();
    private final Map<String, Long> byTenant = new HashMap<>();
    private final Map<String, CreditTopUp> topUps = new LinkedHashMap<>();

    @Override
    public synchronized int record(List<Charge> charges) {
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
    public synchronized Money chargedTo(String tenantId) {
        return Money.ofMicros(byTenant.getOrDefault(tenantId, 0L));
    }

    @Override
    public synchronized Optional<CreditTopUp> topUp(String key) {
        return Optional.ofNullable(topUps.get(key));
    }

    @Override
    public synchronized void recordTopUp(CreditTopUp topUp) {
        if (topUps.putIfAbsent(topUp.key(), topUp) != null) {
            throw new IllegalStateException("top-up key " + topUp.key() + " is already recorded");
        }
    }

    @Override
    public synchronized List<Charge> latestCharges(String tenantId, int limit) {
        return entries.values().stream().filter(c -> c.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(Charge::from).reversed().thenComparing(Charge::grantId))
                .limit(limit).toList();
    }

    @Override
    public synchronized List<CreditTopUp> latestTopUps(String tenantId, int limit) {
        return topUps.values().stream().filter(t -> t.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(CreditTopUp::at).reversed().thenComparing(CreditTopUp::key))
                .limit(limit).toList();
    }

    @Override
    public synchronized List<HourlyCharge> hourlyCharges(String tenantId, int limit) {
        record Group(Instant hour, String clusterId, PoolId pool) {
        }
        Map<Group, long[]> sums = new TreeMap<>(Comparator.comparing(Group::hour).thenComparing(Group::clusterId)
                .thenComparing(Group::pool));
        for (Charge c : entries.values()) {
            if (c.tenantId().equals(tenantId)) {
                long[] sum = sums.computeIfAbsent(new Group(c.from().truncatedTo(ChronoUnit.HOURS), c.clusterId(),
                        c.pool()), g -> new long[2]);
                sum[0] += c.amount().micros();
                sum[1] += c.gpus() * Duration.between(c.from(), c.to()).toSeconds();
            }
        }
        List<HourlyCharge> out = new ArrayList<>();
        sums.forEach((g, sum) -> out.add(new HourlyCharge(tenantId, g.clusterId(), g.pool(), g.hour(),
                Money.ofMicros(sum[0]), sum[1])));
        return out.subList(0, Math.min(limit, out.size()));
    }

    public synchronized List<Charge> entries() {
        return new ArrayList<>(entries.values());
    }
}
