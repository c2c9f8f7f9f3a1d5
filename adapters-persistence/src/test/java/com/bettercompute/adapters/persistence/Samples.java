package com.bettercompute.adapters.persistence;

import com.bettercompute.application.fakes.InMemoryClusterRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import com.bettercompute.domain.event.DomainEvent;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Clusters for the contract tests; instants are whole microseconds, the precision every store keeps. */
final class Samples {
    static final Instant T0 = Instant.parse("2026-03-01T10:15:30.123456Z");

    /** A CA certificate as the provider reports it: base64 of a PEM, longer than any short VARCHAR. */
    static final String CA_CERTIFICATE = java.util.Base64.getEncoder().encodeToString(
            ("-----BEGIN CERTIFICATE-----\n" + "MIIDazCCAlOgAwIBAgIUb2JqZWN0".repeat(60)
                    + "\n-----END CERTIFICATE-----\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));

    private Samples() {}

    /**
     * Stores a cluster as it is, with no owner, no event and no check of its tenant: a test's arrangement of clusters in
     * any state. The database's constraints (unique id, unique name among the clusters not deleted) still refuse with
     * {@code CONFLICT}; the count of the tenant's clusters not deleted follows.
     */
    static void insert(ClusterRepository clusters, Cluster cluster) {
        if (clusters instanceof JdbiClusterRepository jdbi) {
            jdbi.insertOne(cluster);
        } else {
            ((InMemoryClusterRepository) clusters).insert(cluster);
        }
    }

    /** {@link #insert} of each, in order; on the database at once (one transaction, JDBC batches). */
    static void insertAll(ClusterRepository clusters, List<Cluster> all) {
        if (clusters instanceof JdbiClusterRepository jdbi) {
            jdbi.insertAll(all);
        } else {
            all.forEach(c -> insert(clusters, c));
        }
    }

    /** The tenants the samples' clusters are of, each allowed {@code maxClusters}: the catalog a new cluster's insert locks. */
    static Catalog tenants(int maxClusters, String... tenantIds) {
        return new Catalog(List.of(), List.of(), List.of(), List.of(),
                java.util.Arrays.stream(tenantIds).map(t -> new Tenant(t, maxClusters)).toList(), List.of(), List.of(), List.of(),
                List.of());
    }

    /** The cluster as a create asks to insert it: owned by its {@code ownerId}, with its created event. */
    static ClusterRepository.NewCluster asNew(Cluster cluster, int maxClusters) {
        return new ClusterRepository.NewCluster(cluster, cluster.ownerId(), created(cluster), maxClusters);
    }

    /** The event a create writes with its cluster. */
    static DomainEvent created(Cluster cluster) {
        return new DomainEvent("kubernetes.cluster.created", cluster.tenantId(), cluster.id(), cluster.createdAt(),
                Map.of("name", cluster.name()));
    }

    /** A standard cluster with every field set, and two node pools: one with everything, one with the optional parts null. */
    static Cluster full(String tenantId, String name, Instant createdAt) {
        String id = Ids.clusterId(tenantId, "user:alice@acme.example", name + "-key");
        NodePool gpu = new NodePool(Ids.nodePoolId(id, "gpu"), id,
                new NodePoolSpec("gpu", "a3-highgpu-8g", 2, new Autoscaling(1, 4), 200, "pd-ssd", true,
                        new Accelerators("nvidia-h100-80gb", 8), List.of("us-central1-a", "us-central1-b"),
                        Map.of("team", "ml", "tier", "gold"),
                        List.of(new Taint("nvidia.com/gpu", "present", TaintEffect.NoSchedule),
                                new Taint("dedicated", null, TaintEffect.NoExecute))),
                ClusterState.PENDING, null, 1, createdAt, createdAt);
        NodePool cpu = new NodePool(Ids.nodePoolId(id, "cpu"), id,
                new NodePoolSpec("cpu", "e2-standard-4", 1, null, NodePoolSpec.DEFAULT_DISK_GIB,
                        NodePoolSpec.DEFAULT_DISK_TYPE, false, null, List.of(), Map.of(), List.of()),
                ClusterState.PENDING, "waiting", 1, createdAt, createdAt);
        return new Cluster(id, tenantId, "prj_1", "pool_1", "acct_platform", name, "a description", ClusterMode.STANDARD,
                "us-central1-a", "us-central1", LocationType.ZONAL, ReleaseChannel.STABLE, "1.30", "1.30.1-gke.1",
                "1.30.1-gke.2", "https://10.0.0.1", List.of("10.0.0.0/8", "192.168.1.0/24"), true, "net_1", "main",
                ClusterState.PENDING, "creating", Ids.providerName(id), "user:alice@acme.example", "fp-" + name, 1,
                createdAt, createdAt.plusSeconds(1), createdAt.plusSeconds(2), null, List.of(gpu, cpu),
                new Cluster.Progress(createdAt.plusSeconds(3), createdAt.plusSeconds(1), "create-node-pool:gpu", 2,
                        createdAt.plusSeconds(30), CA_CERTIFICATE));
    }

    /** An autopilot cluster: no node pools, every optional field null. */
    static Cluster minimal(String tenantId, String name, Instant createdAt) {
        return minimal(tenantId, name, createdAt, name + "-key");
    }

    /** The same with the id derived from another idempotency key, for clusters that share a name. */
    static Cluster minimal(String tenantId, String name, Instant createdAt, String idempotencyKey) {
        String id = Ids.clusterId(tenantId, "service:ci", idempotencyKey);
        return new Cluster(id, tenantId, null, "pool_2", "acct_other", name, null, ClusterMode.AUTOPILOT,
                "europe-west4", "europe-west4", LocationType.REGIONAL, ReleaseChannel.REGULAR, null, null, null, null,
                List.of(), false, null, null, ClusterState.PENDING, null, Ids.providerName(id), "service:ci", null, 1,
                createdAt, createdAt, null, null, List.of(), Cluster.Progress.NONE);
    }

    static Cluster deleted(Cluster c, Instant at) {
        return c.toBuilder().state(ClusterState.DELETED).deletedAt(at).updatedAt(at).version(c.version() + 1)
                .nodePools(c.nodePools().stream().map(p -> p.withState(ClusterState.DELETED, null, at)).toList())
                .build();
    }
}
