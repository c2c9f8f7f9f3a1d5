package com.bettercompute.domain.cluster;

/** The GPUs attached to each node of a pool. */
public record Accelerators(String type, int count) {}
