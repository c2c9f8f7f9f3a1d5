package com.bettercompute.application.provider;

import java.util.Objects;

/** Accelerators attached to every node of a pool, e.g. {@code nvidia-h100-80gb} x 8. */
public record Accelerator(String type, int count) {
    public Accelerator {
        Objects.requireNonNull(type, "type");
    }
}
