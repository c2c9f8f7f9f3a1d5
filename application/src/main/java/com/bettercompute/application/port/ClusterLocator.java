package com.bettercompute.application.port;

import java.util.Objects;

/**
 * Where a cluster lives at the provider: the provider-side project, a zone (zonal cluster) or a
 * region (regional cluster), and the provider-side name ({@link ProviderNames#clusterName}).
 */
public record ClusterLocator(String project, String location, String name) {
    public ClusterLocator {
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return project + "/" + location + "/" + name;
    }
}
