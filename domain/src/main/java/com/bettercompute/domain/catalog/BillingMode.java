package com.bettercompute.domain.catalog;

/** How a pool's clusters are billed to the tenant. */
public enum BillingMode {
    /** Cluster hours billed at the provider's rate. */
    METERED,
    /** Cluster hours billed as the platform's fee. */
    PLATFORM_FEE,
    /** Nothing billed here; budgets are not checked. */
    NONE;

    /** The wire form, made once (the same in every locale). */
    private final String wire = name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');

    public String wire() {
        return wire;
    }

    public static BillingMode fromWire(String s) {
        for (BillingMode m : values()) {
            if (m.wire().equals(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("billing mode must be metered, platform-fee or none");
    }
}
