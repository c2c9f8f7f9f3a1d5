package com.bettercompute.application.cluster;

import com.bettercompute.domain.cluster.ReleaseChannel;

import java.util.List;

/**
 * The input of {@code update}. A field left out is not changed; at least one of {@code version},
 * {@code releaseChannel}, {@code authorizedNetworks} and {@code description} must be given.
 */
public record UpdateClusterCommand(String tenantId, String clusterId, String version, ReleaseChannel releaseChannel,
                                   List<String> authorizedNetworks, String description) {

    public ClusterRef ref() {
        return new ClusterRef(tenantId, clusterId);
    }
}
