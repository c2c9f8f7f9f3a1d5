package com.bettercompute.application.port;

import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.StorageCharge;

import java.util.List;

/** The billed hours of shared volumes, keyed by (volume, hour). Writes take part in the caller's transaction. */
public interface StorageLedger {

    /** Records the charge unless one of that volume and hour exists; true when it was new. */
    boolean record(StorageCharge charge);

    /** The sum of a tenant's storage charges; zero when none. */
    Money chargedTo(String tenantId);

    /** The sum of one volume's charges; zero when none. */
    Money chargedFor(String volumeId);

    /** A tenant's charges, oldest hour first (then by volume), at most {@code limit}. */
    List<StorageCharge> forTenant(String tenantId, int limit);

    /** A tenant's latest charges, newest hour first (then by volume), at most {@code limit}. */
    List<StorageCharge> latest(String tenantId, int limit);
}
