package com.bettercompute.application.provider;

/** Node pool autoscaling bounds, per zone of the pool as the provider counts them. */
public record Autoscaling(int minNodes, int maxNodes) {
    public Autoscaling {
        if (minNodes < 0 || maxNodes < 1 || minNodes > maxNodes) {
            throw new IllegalArgumentException("autoscaling needs 0 <= min <= max and max >= 1: " + minNodes + ".." + maxNodes);
        }
    }
}
