package com.bettercompute.application.fakes;

import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.domain.usage.UsageRecord;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** {@link UsageLedger} on an {@link InMemoryStore}: one record per (cluster, hour), the first one kept. */
public final class InMemoryUsageLedger implements UsageLedger {
    private static final Comparator<UsageRecord> OLDEST_HOUR_FIRST =
            Comparator.comparing(UsageRecord::hourStart).thenComparing(UsageRecord::clusterId);

    private final InMemoryStore store;

    public InMemoryUsageLedger(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public boolean record(UsageRecord usage) {
        return store.locked(s -> s.usage.putIfAbsent(key(usage.clusterId(), usage.hourStart()), usage) == null);
    }

    @Override
    public Optional<Instant> lastHour(String clusterId) {
        return store.locked(s -> s.usage.values().stream()
                .filter(u -> u.clusterId().equals(clusterId))
                .map(UsageRecord::hourStart)
                .max(Comparator.naturalOrder()));
    }

    @Override
    public List<UsageRecord> forTenant(String tenantId, int limit) {
        return store.locked(s -> s.usage.values().stream()
                .filter(u -> u.tenantId().equals(tenantId))
                .sorted(OLDEST_HOUR_FIRST)
                .limit(Math.max(0, limit))
                .toList());
    }

    private static String key(String clusterId, Instant hourStart) {
        return clusterId + '\n' + hourStart;
    }
}
