package com.bettercompute.application.cluster;

import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.input.Input;

import java.util.List;

/**
 * The input of {@code update}. A field left out is not changed; at least one of {@code version},
 * {@code releaseChannel}, {@code authorizedNetworks} and {@code description} must be given.
 */
public record UpdateClusterCommand(String tenantId, String clusterId, String version, ReleaseChannel releaseChannel,
                                   List<String> authorizedNetworks, String description) {

    public static UpdateClusterCommand from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String clusterId = in.string("clusterId", true, 56, Patterns.CLUSTER_ID);
        String version = in.string("version", false, 64, Patterns.VERSION);
        ReleaseChannel channel = in.oneOf("releaseChannel", false, CreateClusterCommand.CHANNELS, null);
        List<String> networks = CreateClusterCommand.authorizedNetworks(in);
        String description = in.string("description", false, 256, null);
        boolean any = in.has("version") || in.has("releaseChannel") || in.has("authorizedNetworks") || in.has("description");
        in.finish();
        if (!any && in.valid()) {
            in.reject("", "name at least one of version, releaseChannel, authorizedNetworks, description");
        }
        in.throwIfInvalid();
        return new UpdateClusterCommand(tenantId, clusterId, version, channel, networks, description);
    }

    public ClusterRef ref() {
        return new ClusterRef(tenantId, clusterId);
    }
}
