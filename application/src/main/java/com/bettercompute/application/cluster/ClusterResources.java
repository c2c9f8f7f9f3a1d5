package com.bettercompute.application.cluster;

import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;

import java.util.LinkedHashMap;
import java.util.Map;

/** A cluster as the authorization decision sees it: its tenant, id and attributes. */
public final class ClusterResources {
    private ClusterResources() {}

    public static Resource of(Cluster c) {
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

    /**
     * A cluster that was not found in the tenant: nothing is known of it, not even that the id is one of
     * the tenant's, so neither ownership nor a binding on that id can allow anything here — only a
     * binding on the tenant without conditions (whose holder may then learn it is not found).
     */
    static Resource unknown(String tenantId) {
        return Resource.cluster(tenantId, null, Map.of());
    }
}
