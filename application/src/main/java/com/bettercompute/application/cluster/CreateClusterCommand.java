package com.bettercompute.application.cluster;

import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import com.bettercompute.domain.input.Input;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The input of {@code kubernetesClusters.create}, read against the spec's table with defaults applied.
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

    static final Map<String, ClusterMode> MODES = wireMap(ClusterMode.values());
    static final Map<String, ReleaseChannel> CHANNELS = wireMap(ReleaseChannel.values());
    public static final Map<String, TaintEffect> EFFECTS = effects();
    /** Node pools whose names start so are the platform's (the provider's temporary first pool is {@code bc-initial}). */
    static final String RESERVED_POOL_PREFIX = "bc-";

    public CreateClusterCommand {
        authorizedNetworks = List.copyOf(authorizedNetworks);
        nodePools = List.copyOf(nodePools);
    }

    /** Reads the body; {@code INVALID_INPUT} naming every bad field. */
    public static CreateClusterCommand from(Object body) {
        Input in = Input.of(body);
        String tenantId = in.string("tenantId", true, 128, Patterns.TENANT_ID);
        String projectId = in.string("projectId", false, 56, Patterns.PROJECT_ID);
        String poolId = in.string("poolId", true, 57, Patterns.POOL_ID);
        String name = in.string("name", true, 40, Patterns.NAME);
        ClusterMode mode = in.oneOf("mode", true, MODES, null);
        String location = in.string("location", true, 40, Patterns.LOCATION);
        ReleaseChannel channel = in.oneOf("releaseChannel", false, CHANNELS, ReleaseChannel.REGULAR);
        String version = in.string("version", false, 64, Patterns.VERSION);
        String networkId = in.string("networkId", false, 56, Patterns.NETWORK_ID);
        List<String> networks = authorizedNetworks(in);
        Boolean privateNodes = in.bool("privateNodes", false);
        String description = in.string("description", false, 256, null);
        List<NodePoolSpec> pools = new ArrayList<>();
        List<Input> poolInputs = in.objects("nodePools", 10);
        if (poolInputs != null) {
            Set<String> names = new HashSet<>();
            for (int i = 0; i < poolInputs.size(); i++) {
                NodePoolSpec spec = nodePool(poolInputs.get(i));
                if (spec != null) {
                    if (!names.add(spec.name())) {
                        poolInputs.get(i).reject("name", "is the name of another node pool of this cluster");
                    }
                    pools.add(spec);
                }
            }
        }
        String key = in.string("idempotencyKey", true, 128, Patterns.IDEMPOTENCY_KEY);
        in.finish().throwIfInvalid();
        return new CreateClusterCommand(tenantId, projectId, poolId, name, mode, location, channel, version, networkId,
                networks == null ? List.of() : networks, privateNodes, description, pools, key);
    }

    static List<String> authorizedNetworks(Input in) {
        List<String> networks = in.strings("authorizedNetworks", 50, 18, null);
        if (networks != null) {
            for (int i = 0; i < networks.size(); i++) {
                String problem = Cidrs.problem(networks.get(i));
                if (problem != null) {
                    in.reject("authorizedNetworks[" + i + "]", problem);
                }
            }
        }
        return networks;
    }

    /** One node pool of the table ({@code nodePools[]} here; {@code kubernetesNodePools.create} reads the same fields). */
    public static NodePoolSpec nodePool(Input p) {
        String name = p.string("name", true, 40, Patterns.NAME);
        if (name != null && name.startsWith(RESERVED_POOL_PREFIX)) {
            p.reject("name", "must not start with " + RESERVED_POOL_PREFIX + ": the prefix is kept for the platform's own node pools");
        }
        String machineType = p.string("machineType", true, 63, Patterns.MACHINE_TYPE);
        Integer nodeCount = p.integer("nodeCount", true, 0, 1000);
        Autoscaling autoscaling = autoscaling(p);
        Integer diskGiB = p.integer("diskGiB", false, 10, 65536);
        String diskType = p.string("diskType", false, 42, Patterns.DISK_TYPE);
        Boolean spot = p.bool("spot", false);
        Accelerators accelerators = null;
        Input acc = p.object("accelerators", false);
        if (acc != null) {
            String type = acc.string("type", true, 63, Patterns.ACCELERATOR_TYPE);
            Integer count = acc.integer("count", true, 1, 16);
            acc.finish();
            if (type != null && count != null) {
                accelerators = new Accelerators(type, count);
            }
        }
        List<String> zones = p.strings("zones", 10, 40, Patterns.ZONE);
        Map<String, String> labels = labels(p);
        List<Taint> taints = taints(p);
        p.finish();
        if (name == null || machineType == null || nodeCount == null || spot == null) {
            return null;
        }
        return new NodePoolSpec(name, machineType, nodeCount, autoscaling,
                diskGiB == null ? NodePoolSpec.DEFAULT_DISK_GIB : diskGiB,
                diskType == null ? NodePoolSpec.DEFAULT_DISK_TYPE : diskType, spot, accelerators,
                zones == null ? List.of() : new ArrayList<>(new java.util.TreeSet<>(zones)),
                labels == null ? Map.of() : labels, taints);
    }

    /** A node pool's {@code autoscaling} (null when absent); {@code kubernetesNodePools.update} reads it the same way. */
    public static Autoscaling autoscaling(Input p) {
        Input a = p.object("autoscaling", false);
        if (a == null) {
            return null;
        }
        Integer min = a.integer("minNodes", true, 0, 1000);
        Integer max = a.integer("maxNodes", true, 1, 1000);
        a.finish();
        if (min == null || max == null) {
            return null;
        }
        if (min > max) {
            a.reject("minNodes", "must not be above maxNodes");
        }
        return new Autoscaling(min, max);
    }

    /** A node pool's {@code labels}: Kubernetes label keys and values; null when absent. */
    public static Map<String, String> labels(Input p) {
        return p.stringMap("labels", 64, 253, Patterns.QUALIFIED_NAME, 63, Patterns.LABEL_VALUE);
    }

    /** A node pool's {@code taints}, as given (an empty list when absent). */
    public static List<Taint> taints(Input p) {
        List<Taint> taints = new ArrayList<>();
        List<Input> taintInputs = p.objects("taints", 32);
        if (taintInputs != null) {
            for (Input t : taintInputs) {
                String key = t.string("key", true, 253, Patterns.QUALIFIED_NAME);
                String value = t.string("value", false, 63, Patterns.LABEL_VALUE);
                TaintEffect effect = t.oneOf("effect", true, EFFECTS, null);
                t.finish();
                if (key != null && effect != null) {
                    taints.add(new Taint(key, value, effect));
                }
            }
        }
        return taints;
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
