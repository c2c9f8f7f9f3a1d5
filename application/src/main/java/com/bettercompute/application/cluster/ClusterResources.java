package com.bettercompute.application.cluster;

import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;

import java.util.LinkedHashMap;
import java.util.Map;

/** A cluster as the authorization decision sees it: its tenant, id and attributes. */
final class ClusterResources {
    private ClusterResources() {}

    static Resource of(Cluster c) {
        return of(c.tenantId(), c.id(), c.providerAccountId(), c.poolId(), c.projectId(), c.mode(), c.location());
    }

    static Resource of(String tenantId, String id, String accountId, String poolId, String projectId, ClusterMode mode, String location) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("providerAccountId", accountId);
        attributes.put("poolId", poolId);
        if (projectId != null) {
            attributes.put("projectId", projectId);
        }
        attributes.put("mode", mode.wire());
        attributes.put("location", location);
        return Resource.cluster(tenantId, id, attributes);
    }

    /** A cluster that was not found in the tenant: only its id is known. */
    static Resource unknown(String tenantId, String clusterId) {
        return Resource.cluster(tenantId, clusterId, Map.of());
    }
}
