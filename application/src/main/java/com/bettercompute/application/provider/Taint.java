package com.bettercompute.application.provider;

import java.util.Objects;

/** A Kubernetes taint put on every node of a pool. {@code value} may be empty, never null. */
public record Taint(String key, String value, Effect effect) {
    public enum Effect {
        NO_SCHEDULE,
        PREFER_NO_SCHEDULE,
        NO_EXECUTE
    }

    public Taint {
        Objects.requireNonNull(key, "key");
        value = value == null ? "" : value;
        Objects.requireNonNull(effect, "effect");
    }
}
