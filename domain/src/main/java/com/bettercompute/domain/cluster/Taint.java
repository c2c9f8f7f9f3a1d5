package com.bettercompute.domain.cluster;

/** A Kubernetes taint put on every node of a pool; {@code value} may be null. */
public record Taint(String key, String value, TaintEffect effect) {}
