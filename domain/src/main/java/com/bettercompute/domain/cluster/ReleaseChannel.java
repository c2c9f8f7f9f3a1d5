package com.bettercompute.domain.cluster;

/** The provider's release channel: how fast the control plane follows new Kubernetes versions. */
public enum ReleaseChannel {
    /** Newest versions first. */
    RAPID,
    /** The default. */
    REGULAR,
    /** Versions proven on the regular channel. */
    STABLE,
    /** Long support for one minor. */
    EXTENDED;

    public String wire() {
        return name().toLowerCase();
    }
}
