package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.ListNodePoolsQuery;
import com.bettercompute.application.nodepool.NodePoolRef;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.TaintEffect;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The bodies of {@code /api/compute/kubernetesNodePools/<method>}, and the node pool table of the clusters
 * spec that {@code kubernetesClusters.create}'s {@code nodePools[]} share.
 */
final class NodePoolRequests {
    private NodePoolRequests() {}

    record Autoscaling(@Required BigInteger minNodes, @Required BigInteger maxNodes) {}

    record AcceleratorsRequest(@Required String type, @Required BigInteger count) {}

    record Taint(@Required String key, String value, @Required String effect) {}

    /** One node pool of the table: {@code nodePools[]} of a cluster's create. */
    record NodePool(@Required String name, @Required String machineType, @Required BigInteger nodeCount, Autoscaling autoscaling,
                    BigInteger diskGiB, String diskType, Boolean spot, AcceleratorsRequest accelerators, List<String> zones,
                    Map<String, String> labels, List<Taint> taints) {

        /** Checks the pool's fields, then refuses the unknown fields of {@code bound} (the object they came in). */
        NodePoolSpec spec(Fields p, Object bound) {
            String name = p.string("name", this.name, true, 40, Patterns.NAME);
            if (name != null && name.startsWith(CreateClusterCommand.RESERVED_POOL_PREFIX)) {
                p.reject("name", "must not start with " + CreateClusterCommand.RESERVED_POOL_PREFIX
                        + ": the prefix is kept for the platform's own node pools");
            }
            String machineType = p.string("machineType", this.machineType, true, 63, Patterns.MACHINE_TYPE);
            Integer nodeCount = p.integer("nodeCount", this.nodeCount, true, 0, 1000);
            com.bettercompute.domain.cluster.Autoscaling autoscaling = checkAutoscaling(p, this.autoscaling);
            Integer diskGiB = p.integer("diskGiB", this.diskGiB, false, 10, 65536);
            String diskType = p.string("diskType", this.diskType, false, 42, Patterns.DISK_TYPE);
            Boolean spot = p.bool("spot", this.spot, false);
            Accelerators accelerators = null;
            Fields acc = p.object("accelerators", this.accelerators, false);
            if (acc != null) {
                String type = acc.string("type", this.accelerators.type(), true, 63, Patterns.ACCELERATOR_TYPE);
                Integer count = acc.integer("count", this.accelerators.count(), true, 1, 16);
                acc.finish(this.accelerators);
                if (type != null && count != null) {
                    accelerators = new Accelerators(type, count);
                }
            }
            List<String> zones = p.strings("zones", this.zones, 10, 40, Patterns.ZONE);
            Map<String, String> labels = checkLabels(p, this.labels);
            List<com.bettercompute.domain.cluster.Taint> taints = checkTaints(p, this.taints);
            p.finish(bound);
            if (name == null || machineType == null || nodeCount == null || spot == null) {
                return null;
            }
            return new NodePoolSpec(name, machineType, nodeCount, autoscaling,
                    diskGiB == null ? NodePoolSpec.DEFAULT_DISK_GIB : diskGiB,
                    diskType == null ? NodePoolSpec.DEFAULT_DISK_TYPE : diskType, spot, accelerators,
                    zones == null ? List.of() : new ArrayList<>(new TreeSet<>(zones)),
                    labels == null ? Map.of() : labels, taints);
        }
    }

    /** A node pool's {@code autoscaling} (null when absent). */
    static com.bettercompute.domain.cluster.Autoscaling checkAutoscaling(Fields p, Autoscaling value) {
        Fields a = p.object("autoscaling", value, false);
        if (a == null) {
            return null;
        }
        Integer min = a.integer("minNodes", value.minNodes(), true, 0, 1000);
        Integer max = a.integer("maxNodes", value.maxNodes(), true, 1, 1000);
        a.finish(value);
        if (min == null || max == null) {
            return null;
        }
        if (min > max) {
            a.reject("minNodes", "must not be above maxNodes");
        }
        return new com.bettercompute.domain.cluster.Autoscaling(min, max);
    }

    /** A node pool's {@code labels}: Kubernetes label keys and values; null when absent. */
    static Map<String, String> checkLabels(Fields p, Map<String, String> value) {
        return p.stringMap("labels", value, 64, 253, Patterns.QUALIFIED_NAME, 63, Patterns.LABEL_VALUE);
    }

    /** A node pool's {@code taints}, as given (an empty list when absent). */
    static List<com.bettercompute.domain.cluster.Taint> checkTaints(Fields p, List<Taint> value) {
        List<com.bettercompute.domain.cluster.Taint> taints = new ArrayList<>();
        List<Fields> fields = p.objects("taints", value, 32);
        if (fields != null) {
            for (int i = 0; i < fields.size(); i++) {
                Fields t = fields.get(i);
                Taint given = value.get(i);
                String key = t.string("key", given.key(), true, 253, Patterns.QUALIFIED_NAME);
                String v = t.string("value", given.value(), false, 63, Patterns.LABEL_VALUE);
                TaintEffect effect = t.oneOf("effect", given.effect(), true, CreateClusterCommand.EFFECTS, null);
                t.finish(given);
                if (key != null && effect != null) {
                    taints.add(new com.bettercompute.domain.cluster.Taint(key, v, effect));
                }
            }
        }
        return taints;
    }

    /**
     * The body of {@code create}: a cluster, an idempotency key, and one node pool's fields (the node pool
     * table's, the same constraints) beside them.
     */
    record CreateNodePool(@Required String tenantId, @Required String clusterId, @Required String idempotencyKey,
                          @Required String name, @Required String machineType, @Required BigInteger nodeCount,
                          Autoscaling autoscaling, BigInteger diskGiB, String diskType, Boolean spot,
                          AcceleratorsRequest accelerators, List<String> zones, Map<String, String> labels, List<Taint> taints)
            implements Request<CreateNodePoolCommand> {
        @Override
        public CreateNodePoolCommand command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String clusterId = in.string("clusterId", this.clusterId, true, 56, Patterns.CLUSTER_ID);
            String key = in.string("idempotencyKey", idempotencyKey, true, 128, Patterns.IDEMPOTENCY_KEY);
            NodePoolSpec spec = new NodePool(name, machineType, nodeCount, autoscaling, diskGiB, diskType, spot, accelerators,
                    zones, labels, taints).spec(in, this);
            in.throwIfInvalid();
            return new CreateNodePoolCommand(tenantId, clusterId, spec, key);
        }
    }

    record ListNodePools(@Required String tenantId, @Required String clusterId, Boolean includeDeleted)
            implements Request<ListNodePoolsQuery> {
        @Override
        public ListNodePoolsQuery command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String clusterId = in.string("clusterId", this.clusterId, true, 56, Patterns.CLUSTER_ID);
            Boolean includeDeleted = in.bool("includeDeleted", this.includeDeleted, false);
            in.finish(this).throwIfInvalid();
            return new ListNodePoolsQuery(tenantId, clusterId, includeDeleted);
        }
    }

    /** The body of {@code get} and {@code delete}. */
    record OneNodePool(@Required String tenantId, @Required String clusterId, @Required String nodePoolId)
            implements Request<NodePoolRef> {
        @Override
        public NodePoolRef command(Fields in) {
            NodePoolRef ref = ref(in, tenantId, clusterId, nodePoolId);
            in.finish(this).throwIfInvalid();
            return ref;
        }
    }

    static NodePoolRef ref(Fields in, String tenantId, String clusterId, String nodePoolId) {
        return new NodePoolRef(in.string("tenantId", tenantId, true, 128, Patterns.TENANT_ID),
                in.string("clusterId", clusterId, true, 56, Patterns.CLUSTER_ID),
                in.string("nodePoolId", nodePoolId, true, 56, Patterns.NODE_POOL_ID));
    }

    /**
     * The body of {@code update}. A field left out is not changed; {@code labels} and {@code taints} replace
     * the pool's whole map and list; {@code "autoscaling": null} turns autoscaling off.
     */
    record UpdateNodePool(@Required String tenantId, @Required String clusterId, @Required String nodePoolId,
                          BigInteger nodeCount, Autoscaling autoscaling, Map<String, String> labels, List<Taint> taints)
            implements Request<UpdateNodePoolCommand> {
        @Override
        public UpdateNodePoolCommand command(Fields in) {
            NodePoolRef ref = ref(in, tenantId, clusterId, nodePoolId);
            Integer nodeCount = in.integer("nodeCount", this.nodeCount, false, 0, 1000);
            boolean autoscalingGiven = in.given("autoscaling", this.autoscaling) || in.givenNull("autoscaling");
            com.bettercompute.domain.cluster.Autoscaling autoscaling = checkAutoscaling(in, this.autoscaling);
            boolean labelsGiven = in.given("labels", this.labels);
            Map<String, String> labels = checkLabels(in, this.labels);
            boolean taintsGiven = in.given("taints", this.taints);
            List<com.bettercompute.domain.cluster.Taint> taints = checkTaints(in, this.taints);
            boolean any = in.given("nodeCount", this.nodeCount) || autoscalingGiven || labelsGiven || taintsGiven;
            in.finish(this);
            if (!any && in.valid()) {
                in.reject("", "name at least one of nodeCount, autoscaling, labels, taints");
            }
            in.throwIfInvalid();
            return new UpdateNodePoolCommand(ref, nodeCount, autoscalingGiven, autoscaling,
                    labelsGiven ? labels : null, taintsGiven ? taints : null);
        }
    }
}
