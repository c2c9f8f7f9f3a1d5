package com.bettercompute.domain.volume;

import java.time.Instant;

/** How big a cluster's shared volume is: 2 TiB, or 1 TiB for a cluster created before September 2026 (UTC). */
public final class VolumeSizePolicy {
    /** From this instant on, clusters carry the larger volume. */
    public static final Instant LARGER_FROM = Instant.parse("2026-09-01T00:00:00Z");
    public static final int SMALL_GIB = 1024;
    public static final int LARGE_GIB = 2048;

    private VolumeSizePolicy() {}

    public static int sizeGiB(Instant clusterCreatedAt) {
        return clusterCreatedAt.isBefore(LARGER_FROM) ? SMALL_GIB : LARGE_GIB;
    }
}
