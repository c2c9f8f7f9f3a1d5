package com.bettercompute.application.fakes;

import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@link MarketLedger} on an {@link InMemoryStore}, idempotent by charge key and top-up key like the real one. */
public final class InMemoryMarketLedger implements MarketLedger {
    private final InMemoryStore store;

    public InMemoryMarketLedger(InMemoryStore store) {
        this.store = store;
    }

    public InMemoryMarketLedger() {
        this(new InMemoryStore());
    }

    @Override
    public int record(List<Charge> charges) {
        return store.locked(s -> {
            int added = 0;
            for (Charge c : charges) {
                if (s.charges.putIfAbsent(c.key(), c) == null) {
                    added++;
                }
            }
            return added;
        });
    }

    @Override
    public Money chargedTo(String tenantId) {
        return store.locked(s -> Money.ofMicros(s.charges.values().stream().filter(c -> c.tenantId().equals(tenantId))
                .mapToLong(c -> c.amount().micros()).sum()));
    }

    @Override
    public List<Charge> latest(String tenantId, int limit) {
        return store.locked(s -> s.charges.values().stream().filter(c -> c.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(Charge::from).thenComparing(Charge::grantId).reversed())
                .limit(Math.max(0, limit)).toList());
    }

    @Override
    public List<HourlyCharge> hourly(String tenantId) {
        return store.locked(s -> {
            Map<String, HourlyCharge> sums = new TreeMap<>();
            for (Charge c : s.charges.values()) {
                if (!c.tenantId().equals(tenantId)) {
                    continue;
                }
                Instant hour = c.from().truncatedTo(ChronoUnit.HOURS);
                long gpuSeconds = (long) c.gpus() * (c.to().getEpochSecond() - c.from().getEpochSecond());
                sums.merge(hour + "\n" + c.clusterId() + "\n" + c.pool(),
                        new HourlyCharge(c.clusterId(), c.pool(), hour, c.amount(), gpuSeconds),
                        (a, b) -> new HourlyCharge(a.clusterId(), a.pool(), a.hourStart(), a.amount().plus(b.amount()),
                                a.gpuSeconds() + b.gpuSeconds()));
            }
            return List.copyOf(sums.values());
        });
    }

    @Override
    public boolean credit(CreditTopUp topUp) {
        return store.locked(s -> s.credits.putIfAbsent(topUp.tenantId() + "\n" + topUp.idempotencyKey(), topUp) == null);
    }

    @Override
    public List<CreditTopUp> credits(String tenantId, int limit) {
        return store.locked(s -> s.credits.values().stream().filter(t -> t.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(CreditTopUp::at).thenComparing(CreditTopUp::idempotencyKey).reversed())
                .limit(Math.max(0, limit)).toList());
    }

    /** Every charge recorded, in recording order; for assertions. */
    public List<Charge> entries() {
        return store.locked(s -> new ArrayList<>(s.charges.values()));
    }
}
