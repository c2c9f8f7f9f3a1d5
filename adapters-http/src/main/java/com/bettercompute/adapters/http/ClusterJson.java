package com.bettercompute.adapters.http;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A cluster as the API shows it ({@code API.md}'s resource shape), fields in that order. */
final class ClusterJson {
    private ClusterJson() {}

    static Map<String, Object> of(Cluster c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("tenantId", c.tenantId());
        m.put("projectId", c.projectId());
        m.put("poolId", c.poolId());
        m.put("providerAccountId", c.providerAccountId());
        m.put("name", c.name());
        m.put("description", c.description());
        m.put("mode", c.mode().wire());
        m.put("location", c.location());
        m.put("region", c.region());
        m.put("locationType", c.locationType().wire());
        m.put("releaseChannel", c.releaseChannel().wire());
        m.put("requestedVersion", c.requestedVersion());
        m.put("kubernetesVersion", c.kubernetesVersion());
        m.put("nodeVersion", c.nodeVersion());
        m.put("endpoint", c.endpoint());
        m.put("authorizedNetworks", c.authorizedNetworks());
        m.put("privateNodes", c.privateNodes());
        m.put("networkId", c.networkId());
        m.put("state", c.state().wire());
        m.put("message", c.message());
        m.put("providerName", c.providerName());
        m.put("ownerId", c.ownerId());
        m.put("version", c.version());
        m.put("createdAt", time(c.createdAt()));
        m.put("updatedAt", time(c.updatedAt()));
        m.put("readyAt", time(c.readyAt()));
        m.put("deletedAt", time(c.deletedAt()));
        List<Object> pools = new ArrayList<>();
        for (NodePool p : c.nodePools()) {
            pools.add(nodePool(p));
        }
        m.put("nodePools", pools);
        return m;
    }

    static Map<String, Object> nodePool(NodePool p) {
        NodePoolSpec s = p.spec();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", p.id());
        m.put("clusterId", p.clusterId());
        m.put("name", s.name());
        m.put("machineType", s.machineType());
        m.put("nodeCount", s.nodeCount());
        m.put("autoscaling", s.autoscaling() == null ? null
                : Map.of("minNodes", s.autoscaling().minNodes(), "maxNodes", s.autoscaling().maxNodes()));
        m.put("diskGiB", s.diskGiB());
        m.put("diskType", s.diskType());
        m.put("spot", s.spot());
        m.put("accelerators", s.accelerators() == null ? null
                : Map.of("type", s.accelerators().type(), "count", s.accelerators().count()));
        m.put("zones", s.zones());
        m.put("labels", s.labels());
        List<Object> taints = new ArrayList<>();
        for (Taint t : s.taints()) {
            Map<String, Object> tm = new LinkedHashMap<>();
            tm.put("key", t.key());
            tm.put("value", t.value());
            tm.put("effect", t.effect().name());
            taints.add(tm);
        }
        m.put("taints", taints);
        m.put("state", p.state().wire());
        m.put("message", p.message());
        m.put("version", p.version());
        return m;
    }

    static String time(Instant t) {
        return t == null ? null : t.toString();
    }
}
