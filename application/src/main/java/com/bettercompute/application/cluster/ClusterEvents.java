package com.bettercompute.application.cluster;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.DomainEvent;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** The spec's cluster events, built in one place so every publisher writes the same data. */
public final class ClusterEvents {
    public static final String CREATED = "kubernetes.cluster.created";
    public static final String DELETING = "kubernetes.cluster.deleting";
    public static final String READY = "kubernetes.cluster.ready";
    public static final String UPDATED = "kubernetes.cluster.updated";
    public static final String ERROR = "kubernetes.cluster.error";
    public static final String DELETED = "kubernetes.cluster.deleted";
    /** Built by {@link IssueCredentials}: its data is not the cluster's but the credential's (never the token). */
    public static final String CREDENTIALS_ISSUED = "kubernetes.cluster.credentials-issued";

    private ClusterEvents() {}

    public static DomainEvent of(String type, Cluster c, Instant at) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("clusterId", c.id());
        data.put("tenantId", c.tenantId());
        data.put("name", c.name());
        data.put("mode", c.mode().wire());
        data.put("location", c.location());
        data.put("poolId", c.poolId());
        data.put("state", c.state().wire());
        data.put("version", c.version());
        if (c.message() != null) {
            data.put("message", c.message());
        }
        return new DomainEvent(type, c.tenantId(), c.id(), at, data);
    }
}
