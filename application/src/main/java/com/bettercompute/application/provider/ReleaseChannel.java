package com.bettercompute.application.provider;

/** The provider's release channels. A cluster not enrolled in any channel reports {@code null}. */
public enum ReleaseChannel {
    RAPID,
    REGULAR,
    STABLE,
    EXTENDED
}
