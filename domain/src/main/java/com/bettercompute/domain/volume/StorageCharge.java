package com.bettercompute.domain.volume;

import com.bettercompute.domain.market.Money;

import java.math.BigInteger;
import java.time.Instant;

/**
 * One hour of a volume's storage billed to its organization: the byte-seconds it held in the hour starting at
 * {@code hourStart} and what they cost. Keyed by (volume, hour): recorded once, whatever replays.
 */
public record StorageCharge(String volumeId, Instant hourStart, String tenantId, String clusterId, BigInteger byteSeconds,
                            Money amount, Instant recordedAt) {
    /** The wire name of the usage it is, in {@code /api/usage}. */
    public static final String USAGE_KIND = "kubernetes.volume.gib-hours";
}
