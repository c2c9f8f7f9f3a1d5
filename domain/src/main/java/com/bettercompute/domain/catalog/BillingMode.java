package com.bettercompute.domain.catalog;

/** How a pool's clusters are billed to the tenant. */
public enum BillingMode {
    /** Cluster hours billed at the provider's rate. */
    METERED,
    /** Cluster hours billed as the platform's fee. */
    PLATFORM_FEE,
    /** Nothing billed here; budgets are not checked. */
    NONE;

    public String wire() {
        return name().toLowerCase().replace('_', '-');
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
