package com.bettercompute.application.volume;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageCharge;
import com.bettercompute.domain.volume.StorageMeter;
import com.bettercompute.domain.volume.StoragePrice;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Turns the hours a volume's meter closed into charges, where storage billing is enabled for the volume's site, and
 * takes them off the tenant's one balance in the market, where the market's balance checks see them. Called inside the
 * transaction that saves the meter, so the meter, its charges and the balance are written together; the ledger's key
 * (volume, hour) keeps a replay from billing twice, and only a charge the ledger took as new moves the balance.
 */
final class StorageBilling {
    private final StorageLedger ledger;
    private final MarketRepository markets;
    private final StorageSettings settings;

    StorageBilling(StorageLedger ledger, MarketRepository markets, StorageSettings settings) {
        this.ledger = ledger;
        this.markets = markets;
        this.settings = settings;
    }

    void bill(SharedVolume v, List<StorageMeter.StorageHour> hours, Instant now) {
        Optional<StoragePrice> price = settings.price(v.region());
        if (price.isEmpty()) {
            return;
        }
        Money billed = Money.ZERO;
        for (StorageMeter.StorageHour h : hours) {
            StorageCharge charge = new StorageCharge(v.id(), h.hourStart(), v.tenantId(), v.clusterId(), h.byteSeconds(),
                    price.get().amount(h.byteSeconds()), now);
            if (ledger.record(charge)) {
                billed = billed.plus(charge.amount());
            }
        }
        if (billed.micros() > 0) {
            // the market is locked only for an hour that costs something: once an hour per volume at most
            Market market = markets.load();
            if (!market.hasTenant(v.tenantId())) {
                market.addTenant(v.tenantId(), Money.ZERO);
            }
            market.chargeElsewhere(v.tenantId(), billed);
            markets.save(market);
        }
    }

    /** The meter stopped at {@code now} (a delete accepted): the hours it closes, billed. */
    void stop(SharedVolume v, Instant now) {
        if (v.meter() != null) {
            bill(v, v.meter().stop(now), now);
        }
    }
}
