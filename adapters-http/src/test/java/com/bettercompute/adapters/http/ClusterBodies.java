package com.bettercompute.adapters.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bodies of the clusters API written as JDK values, for the tests of what the API makes of them: a valid one, with
 * fields replaced or removed. Their tenants, pools and zones are those of the application's {@code ClusterWorld}.
 */
final class ClusterBodies {
    static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    static final String GLOBEX_POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e9";

    private ClusterBodies() {}

    /** A valid standard create body; {@code changes} replace or (with a null value) remove fields. */
    static Map<String, Object> standard(String name, Object... changes) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", "acme");
        body.put("poolId", POOL);
        body.put("name", name);
        body.put("mode", "standard");
        body.put("location", "us-central1-a");
        body.put("nodePools", new ArrayList<>(List.of(nodePool("gpu"))));
        body.put("idempotencyKey", "key-" + name);
        return changed(body, changes);
    }

    /** A valid autopilot create body (no node pools). */
    static Map<String, Object> autopilot(String name, Object... changes) {
        Map<String, Object> body = standard(name);
        body.put("mode", "autopilot");
        body.remove("nodePools");
        return changed(body, changes);
    }

    /** A node pool of a create body. */
    static Map<String, Object> nodePool(String name, Object... changes) {
        Map<String, Object> pool = new LinkedHashMap<>();
        pool.put("name", name);
        pool.put("machineType", "a3-highgpu-8g");
        pool.put("nodeCount", 2);
        return changed(pool, changes);
    }

    /** A valid {@code kubernetesNodePools.create} body for the cluster. */
    static Map<String, Object> poolBody(String clusterId, String name, Object... changes) {
        Map<String, Object> body = new LinkedHashMap<>(nodePool(name));
        body.put("tenantId", "acme");
        body.put("clusterId", clusterId);
        body.put("idempotencyKey", "key-" + name);
        return changed(body, changes);
    }

    /** The body with {@code changes} (field, value pairs) put in, or removed where the value is null. */
    static Map<String, Object> changed(Map<String, Object> body, Object... changes) {
        for (int i = 0; i < changes.length; i += 2) {
            if (changes[i + 1] == null) {
                body.remove((String) changes[i]);
            } else {
                body.put((String) changes[i], changes[i + 1]);
            }
        }
        return body;
    }
}
