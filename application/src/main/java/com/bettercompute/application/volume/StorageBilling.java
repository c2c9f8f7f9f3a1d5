package com.bettercompute.application.volume;

import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageCharge;
import com.bettercompute.domain.volume.StorageMeter;
import com.bettercompute.domain.volume.StoragePrice;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Turns the hours a volume's meter closed into charges, where storage billing is enabled for the volume's site. Called
 * inside the transaction that saves the meter, so the meter and its charges are written together; the ledger's key
 * (volume, hour) keeps a replay from billing twice.
 */
final class StorageBilling {
    private final StorageLedger ledger;
    private final StorageSettings settings;

    StorageBilling(StorageLedger ledger, StorageSettings settings) {
        this.ledger = ledger;
        this.settings = settings;
    }

    void bill(SharedVolume v, List<StorageMeter.StorageHour> hours, Instant now) {
        Optional<StoragePrice> price = settings.price(v.region());
        if (price.isEmpty()) {
            return;
        }
        for (StorageMeter.StorageHour h : hours) {
            ledger.record(new StorageCharge(v.id(), h.hourStart(), v.tenantId(), v.clusterId(), h.byteSeconds(),
                    price.get().amount(h.byteSeconds()), now));
        }
    }

    /** The meter stopped at {@code now} (a delete accepted): the hours it closes, billed. */
    void stop(SharedVolume v, Instant now) {
        if (v.meter() != null) {
            bill(v, v.meter().stop(now), now);
        }
    }
}
