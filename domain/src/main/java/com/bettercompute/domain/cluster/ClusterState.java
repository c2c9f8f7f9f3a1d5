package com.bettercompute.domain.cluster;

/** Where a cluster (or node pool) is on its way to the provider and back. */
public enum ClusterState {
    /** Recorded; the provider has not accepted it yet. */
    PENDING,
    /** The provider accepted it and is creating it. */
    PROVISIONING,
    /** The control plane and every node pool are ready. */
    READY,
    /** A change is being applied in place at the provider. */
    UPDATING,
    /** Marked for deletion; the reconciler is deleting it at the provider. */
    DELETING,
    /** Gone at the provider; kept for the record. */
    DELETED,
    /** The provider failed or refused; {@code message} says why. */
    ERROR;

    /** The wire form, made once (the same in every locale). */
    private final String wire = name().toLowerCase(java.util.Locale.ROOT);

    public String wire() {
        return wire;
    }
}
