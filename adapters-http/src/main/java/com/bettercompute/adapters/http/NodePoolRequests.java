package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.ListNodePoolsQuery;
import com.bettercompute.application.nodepool.NodePoolRef;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;
import com.bettercompute.adapters.http.Request.Body;
import com.bettercompute.adapters.http.Schema.Choice;
import com.bettercompute.adapters.http.Schema.Flag;
import com.bettercompute.adapters.http.Schema.ListOf;
import com.bettercompute.adapters.http.Schema.MapOf;
import com.bettercompute.adapters.http.Schema.Obj;
import com.bettercompute.adapters.http.Schema.Whole;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.NodePoolSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The bodies of {@code /api/compute/kubernetesNodePools/<method>}, and the node pool table of the clusters
 * spec that {@code kubernetesClusters.create}'s {@code nodePools[]} share.
 */
final class NodePoolRequests {
    private NodePoolRequests() {}

    static final Whole NODE_COUNT = new Whole(0, 1000, null);

    static final Obj AUTOSCALING = Obj.named("Autoscaling")
            .required("minNodes", new Whole(0, 1000, null))
            .required("maxNodes", new Whole(1, 1000, null))
            .rule("minNodes", "must not be above maxNodes", List.of("minNodes", "maxNodes"),
                    a -> a.get("minNodes").asLong() > a.get("maxNodes").asLong())
            .build();
    static final Obj ACCELERATORS = Obj.named("Accelerators")
            .required("type", Wire.ACCELERATOR_TYPE)
            .required("count", new Whole(1, 16, null))
            .build();
    static final Obj TAINT = Obj.named("Taint")
            .required("key", Wire.LABEL_KEY)
            .optional("value", Wire.LABEL_VALUE)
            .required("effect", Choice.of(CreateClusterCommand.EFFECTS.keySet(), null))
            .build();
    static final MapOf LABELS = new MapOf(Wire.LABEL_KEY, Wire.LABEL_VALUE, 64);
    static final ListOf TAINTS = ListOf.of(TAINT, 32);

    /** A node pool's fields of the table, the same in a cluster's {@code nodePools[]} and a node pool's create. */
    private static Obj.Builder pool(Obj.Builder b) {
        return b.required("name", Wire.NAME.notStartingWith(CreateClusterCommand.RESERVED_POOL_PREFIX))
                .required("machineType", Wire.MACHINE_TYPE)
                .required("nodeCount", NODE_COUNT)
                .optional("autoscaling", AUTOSCALING)
                .optional("diskGiB", new Whole(10, 65536, (long) NodePoolSpec.DEFAULT_DISK_GIB))
                .optional("diskType", Wire.DISK_TYPE)
                .optional("spot", new Flag(false))
                .optional("accelerators", ACCELERATORS)
                .optional("zones", ListOf.of(Wire.ZONE, 10))
                .optional("labels", LABELS)
                .optional("taints", TAINTS);
    }

    static final Obj NODE_POOL = pool(Obj.named("NodePool")).build();

    record AutoscalingRequest(Integer minNodes, Integer maxNodes) {
        com.bettercompute.domain.cluster.Autoscaling value() {
            return new com.bettercompute.domain.cluster.Autoscaling(minNodes, maxNodes);
        }
    }

    record AcceleratorsRequest(String type, Integer count) {}

    record TaintRequest(String key, String value, String effect) {
        com.bettercompute.domain.cluster.Taint taint() {
            return new com.bettercompute.domain.cluster.Taint(key, value, CreateClusterCommand.EFFECTS.get(effect));
        }
    }

    /** One node pool of the table: {@code nodePools[]} of a cluster's create. */
    record NodePool(String name, String machineType, Integer nodeCount, AutoscalingRequest autoscaling, Integer diskGiB,
                    String diskType, Boolean spot, AcceleratorsRequest accelerators, List<String> zones,
                    Map<String, String> labels, List<TaintRequest> taints) {
        NodePoolSpec spec() {
            return new NodePoolSpec(name, machineType, nodeCount, autoscaling == null ? null : autoscaling.value(),
                    diskGiB == null ? NodePoolSpec.DEFAULT_DISK_GIB : diskGiB,
                    diskType == null ? NodePoolSpec.DEFAULT_DISK_TYPE : diskType, spot != null && spot,
                    accelerators == null ? null : new Accelerators(accelerators.type(), accelerators.count()),
                    zones == null ? List.of() : new ArrayList<>(new TreeSet<>(zones)), NodePoolRequests.labels(labels), NodePoolRequests.taints(taints));
        }
    }

    /** Labels sorted by key. */
    static Map<String, String> labels(Map<String, String> labels) {
        return labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    static List<com.bettercompute.domain.cluster.Taint> taints(List<TaintRequest> taints) {
        return taints == null ? List.of() : taints.stream().map(TaintRequest::taint).toList();
    }

    /**
     * The body of {@code create}: a cluster, an idempotency key, and one node pool's fields (the node pool
     * table's, the same constraints) beside them.
     */
    record CreateNodePool(String tenantId, String clusterId, String idempotencyKey, String name, String machineType,
                          Integer nodeCount, AutoscalingRequest autoscaling, Integer diskGiB, String diskType, Boolean spot,
                          AcceleratorsRequest accelerators, List<String> zones, Map<String, String> labels,
                          List<TaintRequest> taints) implements Request<CreateNodePoolCommand> {
        static final Body<CreateNodePool> BODY = new Body<>(CreateNodePool.class, pool(Obj.named("CreateNodePool")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .required("idempotencyKey", Wire.IDEMPOTENCY_KEY)).build());

        @Override
        public CreateNodePoolCommand command(Given given) {
            NodePoolSpec spec = new NodePool(name, machineType, nodeCount, autoscaling, diskGiB, diskType, spot, accelerators,
                    zones, labels, taints).spec();
            return new CreateNodePoolCommand(tenantId, clusterId, spec, idempotencyKey);
        }
    }

    record ListNodePools(String tenantId, String clusterId, Boolean includeDeleted) implements Request<ListNodePoolsQuery> {
        static final Body<ListNodePools> BODY = new Body<>(ListNodePools.class, Obj.named("ListNodePools")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .optional("includeDeleted", new Flag(false))
                .build());

        @Override
        public ListNodePoolsQuery command(Given given) {
            return new ListNodePoolsQuery(tenantId, clusterId, includeDeleted != null && includeDeleted);
        }
    }

    /** The body of {@code get} and {@code delete}. */
    record OneNodePool(String tenantId, String clusterId, String nodePoolId) implements Request<NodePoolRef> {
        static final Body<OneNodePool> BODY = new Body<>(OneNodePool.class, Obj.named("OneNodePool")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .required("nodePoolId", Wire.NODE_POOL_ID)
                .build());

        @Override
        public NodePoolRef command(Given given) {
            return new NodePoolRef(tenantId, clusterId, nodePoolId);
        }
    }

    /**
     * The body of {@code update}. A field left out is not changed; {@code labels} and {@code taints} replace
     * the pool's whole map and list; {@code "autoscaling": null} turns autoscaling off.
     */
    record UpdateNodePool(String tenantId, String clusterId, String nodePoolId, Integer nodeCount, AutoscalingRequest autoscaling,
                          Map<String, String> labels, List<TaintRequest> taints) implements Request<UpdateNodePoolCommand> {
        static final Body<UpdateNodePool> BODY = new Body<>(UpdateNodePool.class, Obj.named("UpdateNodePool")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .required("nodePoolId", Wire.NODE_POOL_ID)
                .optional("nodeCount", NODE_COUNT)
                .nullTurnsOff("autoscaling", AUTOSCALING, "null turns autoscaling off; left out, it is not changed")
                .optional("labels", LABELS)
                .optional("taints", TAINTS)
                .atLeastOneOf("nodeCount", "autoscaling", "labels", "taints")
                .build());

        @Override
        public UpdateNodePoolCommand command(Given given) {
            boolean autoscalingGiven = given.value("autoscaling") || given.explicitNull("autoscaling");
            return new UpdateNodePoolCommand(new NodePoolRef(tenantId, clusterId, nodePoolId), nodeCount, autoscalingGiven,
                    autoscaling == null ? null : autoscaling.value(), labels == null ? null : NodePoolRequests.labels(labels),
                    taints == null ? null : NodePoolRequests.taints(taints));
        }
    }
}
