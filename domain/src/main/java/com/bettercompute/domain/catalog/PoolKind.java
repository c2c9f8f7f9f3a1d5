package com.bettercompute.domain.catalog;

/** What a pool sells. Only provider pools can hold managed Kubernetes clusters. */
public enum PoolKind {
    /** Capacity at a cloud provider account. */
    PROVIDER,
    /** Bare-metal capacity run by the platform. */
    METAL,
    /** Any other kind the catalog names. */
    OTHER;

    public static PoolKind fromWire(String s) {
        return switch (s) {
            case "provider" -> PROVIDER;
            case "metal" -> METAL;
            default -> OTHER;
        };
    }
}
