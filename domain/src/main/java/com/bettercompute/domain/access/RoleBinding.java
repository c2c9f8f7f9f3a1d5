package com.bettercompute.domain.access;

import java.util.List;
import java.util.Map;

/**
 * A role given to a principal on a tenant ({@code clusterId} null) or on one cluster ({@code tenantId}
 * null: the cluster names its tenant), optionally
 * narrowed by conditions: each named attribute of the resource must hold one of the listed values.
 */
public record RoleBinding(String principalId, String tenantId, String clusterId, Role role, Map<String, List<String>> where) {
    public RoleBinding {
        where = Map.copyOf(where);
    }

    public boolean onCluster() {
        return clusterId != null;
    }
}
