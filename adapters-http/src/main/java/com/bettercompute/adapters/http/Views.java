package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.IssueCredentials;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.port.ServerConfig;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.usage.UsageRecord;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The answers of the API as Jackson writes them ({@code API.md}'s resource shapes, fields in that order),
 * and the types the OpenAPI document describes them with.
 */
final class Views {
    private Views() {}

    record ClusterView(String id, String tenantId, @MayBeNull String projectId, String poolId, String providerAccountId, String name,
                       @MayBeNull String description, String mode, String location, String region, String locationType,
                       String releaseChannel, @MayBeNull String requestedVersion, @MayBeNull String kubernetesVersion, @MayBeNull String nodeVersion,
                       @MayBeNull String endpoint, List<String> authorizedNetworks, boolean privateNodes, @MayBeNull String networkId, String state,
                       @MayBeNull String message, String providerName, String ownerId, long version, String createdAt, String updatedAt,
                       @MayBeNull String readyAt, @MayBeNull String deletedAt, List<NodePoolView> nodePools,
                       @MayBeNull VolumeViews.ClusterVolume sharedVolume) {
        static ClusterView of(Cluster c) {
            return of(c, null);
        }

        /** With the cluster's shared volume (null: it has none, or it is not shown). */
        static ClusterView of(Cluster c, VolumeViews.ClusterVolume volume) {
            return new ClusterView(c.id(), c.tenantId(), c.projectId(), c.poolId(), c.providerAccountId(), c.name(),
                    c.description(), c.mode().wire(), c.location(), c.region(), c.locationType().wire(),
                    c.releaseChannel().wire(), c.requestedVersion(), c.kubernetesVersion(), c.nodeVersion(), c.endpoint(),
                    c.authorizedNetworks(), c.privateNodes(), c.networkId(), c.state().wire(), c.message(), c.providerName(),
                    c.ownerId(), c.version(), time(c.createdAt()), time(c.updatedAt()), time(c.readyAt()), time(c.deletedAt()),
                    c.nodePools().stream().map(NodePoolView::of).toList(), volume);
        }
    }

    record NodePoolView(String id, String clusterId, String name, String machineType, int nodeCount, @MayBeNull AutoscalingView autoscaling,
                        int diskGiB, String diskType, boolean spot, @MayBeNull AcceleratorsView accelerators, List<String> zones,
                        Map<String, String> labels, List<TaintView> taints, String state, @MayBeNull String message, long version) {
        static NodePoolView of(NodePool p) {
            NodePoolSpec s = p.spec();
            return new NodePoolView(p.id(), p.clusterId(), s.name(), s.machineType(), s.nodeCount(),
                    s.autoscaling() == null ? null : new AutoscalingView(s.autoscaling().minNodes(), s.autoscaling().maxNodes()),
                    s.diskGiB(), s.diskType(), s.spot(),
                    s.accelerators() == null ? null : new AcceleratorsView(s.accelerators().type(), s.accelerators().count()),
                    s.zones(), s.labels(),
                    s.taints().stream().map(t -> new TaintView(t.key(), t.value(), t.effect().name())).toList(),
                    p.state().wire(), p.message(), p.version());
        }
    }

    record AutoscalingView(int minNodes, int maxNodes) {}

    record AcceleratorsView(String type, int count) {}

    record TaintView(String key, @MayBeNull String value, String effect) {}

    record ClusterList(List<ClusterView> items) {
        static ClusterList of(List<Cluster> clusters) {
            return new ClusterList(clusters.stream().map(ClusterView::of).toList());
        }
    }

    record NodePoolList(List<NodePoolView> items) {
        static NodePoolList of(List<NodePool> pools) {
            return new NodePoolList(pools.stream().map(NodePoolView::of).toList());
        }
    }

    /** The answer of {@code credentials}. It holds a token: never log it. */
    record CredentialsView(String kubeconfig, String expiresAt, String role) {
        static CredentialsView of(IssueCredentials.Credentials c) {
            return new CredentialsView(KubeconfigYaml.write(c.kubeconfig()), time(c.expiresAt()), c.role().wire());
        }
    }

    record ChannelVersions(@MayBeNull String defaultVersion, List<String> validVersions) {}

    /** The answer of {@code versions}; {@code channels} is keyed by the lower-case channel name. */
    record VersionsView(@MayBeNull String defaultVersion, List<String> validVersions, Map<String, ChannelVersions> channels) {
        static VersionsView of(ServerConfig config) {
            Map<String, ChannelVersions> channels = new LinkedHashMap<>();
            for (ReleaseChannel channel : ReleaseChannel.values()) {
                ServerConfig.ChannelVersions v = config.channels().get(channel);
                if (v != null) {
                    channels.put(channel.name().toLowerCase(), new ChannelVersions(v.defaultVersion(), v.validVersions()));
                }
            }
            return new VersionsView(config.defaultVersion(), config.validVersions(), channels);
        }
    }

    record EventView(long sequence, String type, @MayBeNull String tenantId, @MayBeNull String subjectId, String occurredAt, Map<String, Object> data) {
        static EventView of(StoredEvent e) {
            return new EventView(e.sequence(), e.event().type(), e.event().tenantId(), e.event().subjectId(),
                    e.event().occurredAt().toString(), e.event().data());
        }
    }

    /** A page of events; {@code next} is the sequence to ask {@code after} for the next page. */
    record EventPage(List<EventView> items, long next) {}

    record UsageView(String kind, String tenantId, @MayBeNull String clusterId, String hourStart, java.math.BigDecimal quantity, String recordedAt) {
        static UsageView of(UsageRecord r) {
            return new UsageView(r.kind(), r.tenantId(), r.clusterId(), r.hourStart().toString(), r.quantity(), r.recordedAt().toString());
        }
    }

    /** The cluster-hours and, beside them, the market's GPU charges. */
    record UsageList(List<UsageView> items, List<MarketViews.GpuUsageView> gpu) {}

    static String time(Instant t) {
        return t == null ? null : t.toString();
    }
}
