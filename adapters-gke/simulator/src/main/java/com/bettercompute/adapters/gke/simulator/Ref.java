package com.bettercompute.adapters.gke.simulator;

import io.grpc.Status;
import java.util.HashMap;
import java.util.Map;

/**
 * A resource the request names, from its resource name ({@code projects/p/locations/l/clusters/c})
 * or else from the deprecated {@code project_id}/{@code zone}/{@code cluster_id} fields. Never from headers.
 */
record Ref(String project, String location, String cluster, String nodePool, String operation) {

    static Ref of(String name, String projectId, String zone, String clusterId, String nodePoolId, String operationId) {
        Map<String, String> parts = new HashMap<>();
        if (name != null && !name.isEmpty()) {
            String[] segments = name.split("/", -1);
            if (segments.length % 2 != 0) {
                throw invalid("Invalid resource name \"" + name + "\".");
            }
            for (int i = 0; i < segments.length; i += 2) {
                if (segments[i + 1].isEmpty()) {
                    throw invalid("Invalid resource name \"" + name + "\".");
                }
                parts.put(segments[i], segments[i + 1]);
            }
        }
        return new Ref(
                pick(parts.get("projects"), projectId),
                pick(parts.get("locations"), zone),
                pick(parts.get("clusters"), clusterId),
                pick(parts.get("nodePools"), nodePoolId),
                pick(parts.get("operations"), operationId));
    }

    private static String pick(String fromName, String legacy) {
        if (fromName != null) {
            return fromName;
        }
        return legacy == null || legacy.isEmpty() ? null : legacy;
    }

    Ref requireLocation() {
        if (project == null) {
            throw invalid("Required \"project\" is not set: name the resource as projects/*/locations/* or set projectId.");
        }
        if (location == null) {
            throw invalid("Required \"location\" is not set: name the resource as projects/*/locations/* or set zone.");
        }
        return this;
    }

    Ref requireCluster() {
        requireLocation();
        if (cluster == null) {
            throw invalid("Required \"cluster\" is not set: name it as projects/*/locations/*/clusters/* or set clusterId.");
        }
        return this;
    }

    Ref requireNodePool() {
        requireCluster();
        if (nodePool == null) {
            throw invalid("Required \"node pool\" is not set: name it as projects/*/locations/*/clusters/*/nodePools/* or set nodePoolId.");
        }
        return this;
    }

    String locationPath() {
        return "projects/" + project + "/locations/" + location;
    }

    String clusterPath() {
        return locationPath() + "/clusters/" + cluster;
    }

    String nodePoolPath() {
        return clusterPath() + "/nodePools/" + nodePool;
    }

    static RuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
