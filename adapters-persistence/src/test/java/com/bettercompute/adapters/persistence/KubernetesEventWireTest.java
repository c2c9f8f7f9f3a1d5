package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.event.ClusterEvent;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.KubernetesEvent;
import com.bettercompute.domain.event.NodePoolEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The sealed event records go to the outbox exactly as the type-string-and-map events did before them: the
 * same {@code event_type} and, byte for byte, the same {@code data_json} (the texts below were written by the
 * map builders the records replaced).
 */
class KubernetesEventWireTest {
    static final Instant AT = Instant.parse("2026-03-01T10:15:30.123456Z");
    static final String CLUSTER_ID = "kcl_01hzx8k3v4w5y6z7a8b9c0d1e2";
    static final String POOL_ID = "knp_01hzx8k3v4w5y6z7a8b9c0d1e3";

    static Cluster cluster(ClusterState state, String message, long version) {
        NodePool gpu = new NodePool(POOL_ID, CLUSTER_ID, new NodePoolSpec("gpu", "a3-highgpu-8g", 2, null, 100, "pd-balanced", false, null,
                List.of(), Map.of(), List.of()), state, message, 3, AT, AT);
        return new Cluster(CLUSTER_ID, "acme", null, "pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "acct", "train", null, ClusterMode.STANDARD,
                "us-central1-a", "us-central1", LocationType.ZONAL, ReleaseChannel.REGULAR, null, null, null, null, List.of(), false,
                null, null, state, message, "bc-k-01hzx8k3v4w5y6z7a8b9c0", "user:alice", "fp", version, AT, AT, null, null,
                List.of(gpu), Cluster.Progress.NONE);
    }

    static final String CLUSTER_DATA = "{\"clusterId\":\"kcl_01hzx8k3v4w5y6z7a8b9c0d1e2\",\"tenantId\":\"acme\",\"name\":\"train\","
            + "\"mode\":\"standard\",\"location\":\"us-central1-a\",\"poolId\":\"pool_01hzx8k3v4w5y6z7a8b9c0d1e2\",";
    static final String POOL_DATA = "{\"nodePoolId\":\"knp_01hzx8k3v4w5y6z7a8b9c0d1e3\",\"clusterId\":\"kcl_01hzx8k3v4w5y6z7a8b9c0d1e2\","
            + "\"tenantId\":\"acme\",\"name\":\"gpu\",";

    static Stream<Arguments> events() {
        Cluster pending = cluster(ClusterState.PENDING, null, 1);
        Cluster deleting = cluster(ClusterState.DELETING, null, 4);
        Cluster ready = cluster(ClusterState.READY, null, 5);
        Cluster failed = cluster(ClusterState.ERROR, "Insufficient quota: \"GPUS\".", 6);
        Cluster deleted = cluster(ClusterState.DELETED, null, 7);
        NodePool readyPool = ready.nodePools().get(0);
        NodePool failedPool = failed.nodePools().get(0);
        return Stream.of(
                arguments(new ClusterEvent.ClusterCreated(pending, AT), "kubernetes.cluster.created", CLUSTER_ID,
                        CLUSTER_DATA + "\"state\":\"pending\",\"version\":1}"),
                arguments(new ClusterEvent.ClusterDeleting(deleting, AT), "kubernetes.cluster.deleting", CLUSTER_ID,
                        CLUSTER_DATA + "\"state\":\"deleting\",\"version\":4}"),
                arguments(new ClusterEvent.ClusterReady(ready, AT), "kubernetes.cluster.ready", CLUSTER_ID,
                        CLUSTER_DATA + "\"state\":\"ready\",\"version\":5}"),
                arguments(new ClusterEvent.ClusterUpdated(ready, AT), "kubernetes.cluster.updated", CLUSTER_ID,
                        CLUSTER_DATA + "\"state\":\"ready\",\"version\":5}"),
                arguments(new ClusterEvent.ClusterFailed(failed, AT), "kubernetes.cluster.error", CLUSTER_ID,
                        CLUSTER_DATA + "\"state\":\"error\",\"version\":6,\"message\":\"Insufficient quota: \\\"GPUS\\\".\"}"),
                arguments(new ClusterEvent.ClusterDeleted(deleted, AT), "kubernetes.cluster.deleted", CLUSTER_ID,
                        CLUSTER_DATA + "\"state\":\"deleted\",\"version\":7}"),
                arguments(new NodePoolEvent.NodePoolCreated(pending, pending.nodePools().get(0), AT), "kubernetes.nodepool.created", POOL_ID,
                        POOL_DATA + "\"state\":\"pending\",\"version\":3}"),
                arguments(new NodePoolEvent.NodePoolReady(ready, readyPool, AT), "kubernetes.nodepool.ready", POOL_ID,
                        POOL_DATA + "\"state\":\"ready\",\"version\":3}"),
                arguments(new NodePoolEvent.NodePoolUpdated(ready, readyPool, AT), "kubernetes.nodepool.updated", POOL_ID,
                        POOL_DATA + "\"state\":\"ready\",\"version\":3}"),
                arguments(new NodePoolEvent.NodePoolFailed(failed, failedPool, AT), "kubernetes.nodepool.error", POOL_ID,
                        POOL_DATA + "\"state\":\"error\",\"version\":3,\"message\":\"Insufficient quota: \\\"GPUS\\\".\"}"),
                arguments(new NodePoolEvent.NodePoolDeleting(deleting, deleting.nodePools().get(0), AT), "kubernetes.nodepool.deleting",
                        POOL_ID, POOL_DATA + "\"state\":\"deleting\",\"version\":3}"),
                arguments(new NodePoolEvent.NodePoolDeleted(deleted, deleted.nodePools().get(0), AT), "kubernetes.nodepool.deleted",
                        POOL_ID, POOL_DATA + "\"state\":\"deleted\",\"version\":3}"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("events")
    void an_event_is_stored_as_its_wire_name_and_the_same_json(KubernetesEvent event, String type, String subject, String json) {
        DomainEvent stored = event.stored();
        assertThat(event.type()).isEqualTo(type);
        assertThat(stored.type()).isEqualTo(type);
        assertThat(stored.tenantId()).isEqualTo("acme");
        assertThat(stored.subjectId()).isEqualTo(subject);
        assertThat(stored.occurredAt()).isEqualTo(AT);
        assertThat(Json.write(stored.data())).isEqualTo(json);
    }
}
