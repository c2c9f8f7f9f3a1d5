package com.bettercompute.domain.cluster;

/** A node pool's autoscaling bounds. */
public record Autoscaling(int minNodes, int maxNodes) {}
