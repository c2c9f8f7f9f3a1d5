package com.bettercompute.domain.volume;

/** Where a shared volume is in its life. The wire form is the lower-case name. */
public enum VolumeState {
    /** Recorded with its cluster; the provider is making it (the cluster waits for it). */
    PENDING,
    /** Could not be made; nothing of it is left at the provider, and it is tried again with its cluster. */
    FAILED,
    /** Made, and its cluster is alive: every node of the cluster mounts it. */
    ATTACHED,
    /** Its cluster is gone and it was kept: the organization's until someone deletes it. */
    PRESERVED,
    /** A delete was accepted: billing has stopped; the provider is destroying it. */
    DELETING,
    /** Gone at the provider; kept for the record. */
    DELETED;

    private final String wire = name().toLowerCase(java.util.Locale.ROOT);

    public String wire() {
        return wire;
    }

    /** The states in which the volume exists for the organization (listed, and holding bytes). */
    public boolean held() {
        return this == ATTACHED || this == PRESERVED || this == PENDING;
    }
}
