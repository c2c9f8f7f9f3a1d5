package com.bettercompute.domain.cluster;

/** A cluster in one zone, or spread over a region's zones. */
public enum LocationType {
    /** The location is a zone. */
    ZONAL,
    /** The location is a region. */
    REGIONAL;

    /** The wire form, made once (the same in every locale). */
    private final String wire = name().toLowerCase(java.util.Locale.ROOT);

    public String wire() {
        return wire;
    }
}
