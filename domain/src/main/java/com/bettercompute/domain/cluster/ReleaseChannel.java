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

    /** The wire form, made once (the same in every locale). */
    private final String wire = name().toLowerCase(java.util.Locale.ROOT);

    public String wire() {
        return wire;
    }
}
