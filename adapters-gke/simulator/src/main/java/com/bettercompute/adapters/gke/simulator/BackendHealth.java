package com.bettercompute.adapters.gke.simulator;

/**
 * What the simulator's health checks see on a backend: whether the instance answers 200 to an HTTP GET of
 * {@code path} on {@code port}. The simulator has no machines of its own; whoever plays a cluster's nodes answers
 * for them (kube-proxy's health port and a Service's {@code healthCheckNodePort}). Every instance is healthy
 * until one is set.
 */
@FunctionalInterface
public interface BackendHealth {
    BackendHealth ALL_HEALTHY = (project, zone, instance, port, path) -> true;

    boolean healthy(String project, String zone, String instance, int port, String path);
}
