package com.bettercompute.application.cluster;

import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The input of {@code kubernetesClusters.create}, checked against the spec's table, with defaults applied.
 * Two commands with the same {@link #fingerprint()} are the same request.
 */
public record CreateClusterCommand(
        String tenantId,
        String projectId,
        String poolId,
        String name,
        ClusterMode mode,
        String location,
        ReleaseChannel releaseChannel,
        String version,
        String networkId,
        List<String> authorizedNetworks,
        boolean privateNodes,
        String description,
        List<NodePoolSpec> nodePools,
        String idempotencyKey) {

    public static final Map<String, ClusterMode> MODES = wireMap(ClusterMode.values());
    public static final Map<String, ReleaseChannel> CHANNELS = wireMap(ReleaseChannel.values());
    public static final Map<String, TaintEffect> EFFECTS = effects();
    /** Node pools whose names start so are the platform's (the provider's temporary first pool is {@code bc-initial}). */
    public static final String RESERVED_POOL_PREFIX = "bc-";

    public CreateClusterCommand {
        authorizedNetworks = List.copyOf(authorizedNetworks);
        nodePools = List.copyOf(nodePools);
    }

    /** The cluster id this request derives, for this caller. */
    public String clusterId(String callerId) {
        return Ids.clusterId(tenantId, callerId, idempotencyKey);
    }

    /**
     * A hash of every field but the idempotency key, in a fixed order and form, with defaults applied, so
     * a retry that spells the same request differently (a default given explicitly, labels in another
     * order) is still the same request.
     */
    public String fingerprint() {
        StringBuilder s = new StringBuilder();
        add(s, tenantId, projectId, poolId, name, mode.wire(), location, releaseChannel.wire(), version, networkId,
                String.join(",", authorizedNetworks), Boolean.toString(privateNodes), description);
        for (NodePoolSpec p : nodePools) {
            s.append("|pool");
            add(s, canonical(p));
        }
        return Ids.sha256Hex(s.toString());
    }

    public static String canonical(NodePoolSpec p) {
        StringBuilder s = new StringBuilder();
        add(s, p.name(), p.machineType(), Integer.toString(p.nodeCount()),
                p.autoscaling() == null ? null : p.autoscaling().minNodes() + "-" + p.autoscaling().maxNodes(),
                Integer.toString(p.diskGiB()), p.diskType(), Boolean.toString(p.spot()),
                p.accelerators() == null ? null : p.accelerators().type() + "x" + p.accelerators().count(),
                String.join(",", p.zones()));
        new java.util.TreeMap<>(p.labels()).forEach((k, v) -> add(s, "label", k, v));
        for (Taint t : p.taints()) {
            add(s, "taint", t.key(), t.value(), t.effect().name());
        }
        return s.toString();
    }

    /** Appends each part length-prefixed, so no choice of values can make two different inputs look alike. */
    private static void add(StringBuilder s, String... parts) {
        for (String part : parts) {
            if (part == null) {
                s.append("-1:");
            } else {
                s.append(part.length()).append(':').append(part);
            }
        }
    }

    static <E extends Enum<E>> Map<String, E> wireMap(E[] values) {
        Map<String, E> map = new LinkedHashMap<>();
        for (E e : values) {
            map.put(e.name().toLowerCase(), e);
        }
        return java.util.Collections.unmodifiableMap(map);
    }

    private static Map<String, TaintEffect> effects() {
        Map<String, TaintEffect> map = new LinkedHashMap<>();
        for (TaintEffect e : TaintEffect.values()) {
            map.put(e.name(), e);
        }
        return java.util.Collections.unmodifiableMap(map);
    }
}
