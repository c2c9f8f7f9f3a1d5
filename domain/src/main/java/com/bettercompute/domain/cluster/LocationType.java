package com.bettercompute.domain.cluster;

/** A cluster in one zone, or spread over a region's zones. */
public enum LocationType {
    /** The location is a zone. */
    ZONAL,
    /** The location is a region. */
    REGIONAL;

    public String wire() {
        return name().toLowerCase();
    }
}
