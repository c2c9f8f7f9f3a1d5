package com.bettercompute.application.fakes;

import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.StorageCharge;

import java.util.Comparator;
import java.util.List;

/** {@link StorageLedger} on an {@link InMemoryStore}: one charge per (volume, hour), the first one kept. */
public final class InMemoryStorageLedger implements StorageLedger {
    private static final Comparator<StorageCharge> OLDEST_FIRST =
            Comparator.comparing(StorageCharge::hourStart).thenComparing(StorageCharge::volumeId);
    private final InMemoryStore store;

    public InMemoryStorageLedger(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public boolean record(StorageCharge charge) {
        return store.locked(s -> s.storageCharges.putIfAbsent(charge.volumeId() + "\n" + charge.hourStart(), charge) == null);
    }

    @Override
    public Money chargedTo(String tenantId) {
        return store.locked(s -> s.storageCharges.values().stream().filter(c -> c.tenantId().equals(tenantId))
                .map(StorageCharge::amount).reduce(Money.ZERO, Money::plus));
    }

    @Override
    public Money chargedFor(String volumeId) {
        return store.locked(s -> s.storageCharges.values().stream().filter(c -> c.volumeId().equals(volumeId))
                .map(StorageCharge::amount).reduce(Money.ZERO, Money::plus));
    }

    @Override
    public List<StorageCharge> forTenant(String tenantId, int limit) {
        return store.locked(s -> s.storageCharges.values().stream().filter(c -> c.tenantId().equals(tenantId))
                .sorted(OLDEST_FIRST).limit(Math.max(0, limit)).toList());
    }

    @Override
    public List<StorageCharge> latest(String tenantId, int limit) {
        return store.locked(s -> s.storageCharges.values().stream().filter(c -> c.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(StorageCharge::hourStart).reversed().thenComparing(StorageCharge::volumeId))
                .limit(Math.max(0, limit)).toList());
    }
}
