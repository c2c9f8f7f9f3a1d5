package com.bettercompute.domain.access;

/** The actions of the kubernetes module; the wire form is {@code compute:kubernetes:<verb>}. */
public enum Action {
    /** Create a cluster under a tenant. */
    CREATE,
    /** Read a tenant's clusters or one cluster. */
    READ,
    /** Change a cluster. */
    UPDATE,
    /** Delete a cluster. */
    DELETE,
    /** Get credentials for a cluster's Kubernetes API. */
    CONNECT;

    /** The wire form, made once (the same in every locale). */
    private final String wire = "compute:kubernetes:" + name().toLowerCase(java.util.Locale.ROOT);

    public String wire() {
        return wire;
    }
}
