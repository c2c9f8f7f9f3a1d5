package com.bettercompute.adapters.gke;

import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.ClusterStatus;
import com.bettercompute.application.port.NodePoolObservation;
import com.bettercompute.application.port.NodePoolStatus;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.application.port.ProviderNames;
import com.bettercompute.application.port.ServerConfig;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import com.google.api.client.http.HttpResponseException;
import com.google.api.gax.rpc.ApiException;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.container.v1.AcceleratorConfig;
import com.google.container.v1.Autopilot;
import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterUpdate;
import com.google.container.v1.IdentityServiceConfig;
import com.google.container.v1.ControlPlaneEndpointsConfig;
import com.google.container.v1.CreateClusterRequest;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.DeleteClusterRequest;
import com.google.container.v1.DeleteNodePoolRequest;
import com.google.container.v1.GetClusterRequest;
import com.google.container.v1.GetOperationRequest;
import com.google.container.v1.GetServerConfigRequest;
import com.google.container.v1.ListOperationsRequest;
import com.google.container.v1.MasterAuthorizedNetworksConfig;
import com.google.container.v1.NetworkConfig;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodeManagement;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.NodeTaint;
import com.google.container.v1.Operation;
import com.google.container.v1.SetNodePoolAutoscalingRequest;
import com.google.container.v1.SetNodePoolSizeRequest;
import com.google.container.v1.UpdateClusterRequest;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import com.google.auth.Credentials;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ClusterProvider} on GKE's {@code ClusterManagerClient} (gRPC or HTTP/JSON). Every call starts at
 * most one GKE operation and returns; no gax, gRPC or protobuf type leaves this class: failures are
 * {@link ProviderException}s.
 */
public final class GkeClusterProvider implements ClusterProvider, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GkeClusterProvider.class);

    /** The temporary pool a Standard cluster is created with: small, cheap, deleted once our pools exist. */
    static final String INITIAL_POOL_MACHINE_TYPE = "e2-small";
    /** Identity Service named in a GKE error: in words, or as the field ({@code identity_service_config}, {@code identityServiceConfig}). */
    private static final Pattern IDENTITY_SERVICE_NAMED = Pattern.compile("identity[ _]?service", Pattern.CASE_INSENSITIVE);

    private final ClusterManagerClient client;
    /** The platform's Google identity; null until first read from the client's own credentials. */
    private GoogleCredentials credentials;

    /**
     * @param credentials the platform's Google identity in the clusters' Kubernetes APIs; null: the client's own
     *                    credentials, read at the first {@link #platformAccessToken()}
     */
    public GkeClusterProvider(ClusterManagerClient client, GoogleCredentials credentials) {
        this.client = Objects.requireNonNull(client, "client");
        this.credentials = credentials;
    }

    /**
     * On GKE, an OAuth access token of the account's Google credentials: GKE's API servers take it as the
     * account's identity (which holds {@code container.admin} or {@code roles/container.developer} plus
     * RBAC rights to create service accounts and bindings). Refreshed before it expires.
     */
    @Override
    public String platformAccessToken() {
        try {
            GoogleCredentials google;
            synchronized (this) {
                if (credentials == null) {
                    Credentials c = client.getSettings().getCredentialsProvider().getCredentials();
                    if (!(c instanceof GoogleCredentials g)) {
                        throw new ProviderException(Kind.PERMISSION_DENIED,
                                "The GKE client has no Google credentials to reach the clusters' Kubernetes APIs with.");
                    }
                    credentials = g;
                }
                google = credentials;
            }
            google.refreshIfExpired();
            AccessToken token = google.getAccessToken();
            if (token == null) {
                throw new ProviderException(Kind.PERMISSION_DENIED, "The Google credentials gave no access token.");
            }
            return token.getTokenValue();
        } catch (IOException e) {
            // The message of google-auth names the failing step, never a secret; keep only the kind of failure.
            throw new ProviderException(Kind.UNAVAILABLE, "An access token could not be obtained from the Google credentials.");
        }
    }

    @Override
    public void close() {
        client.close();
    }

    private static String locationPath(String project, String location) {
        return "projects/" + project + "/locations/" + location;
    }

    private static String clusterPath(ClusterLocator at) {
        return locationPath(at.project(), at.location()) + "/clusters/" + at.name();
    }

    private static String poolPath(ClusterLocator at, String pool) {
        return clusterPath(at) + "/nodePools/" + pool;
    }

    // ---------------------------------------------------------------- observe

    @Override
    public ClusterObservation observe(ClusterLocator at) {
        Cluster cluster;
        try {
            cluster = client.getCluster(GetClusterRequest.newBuilder().setName(clusterPath(at)).build());
        } catch (RuntimeException e) {
            ProviderException failure = translate(e);
            if (failure.kind() == Kind.NOT_FOUND) {
                return ClusterObservation.absent();
            }
            throw failure;
        }
        return toObservation(cluster);
    }

    @Override
    public OperationStatus operation(ClusterLocator at, String name) {
        if (name == null) {
            return latestOperation(at);
        }
        Operation operation;
        try {
            operation = client.getOperation(GetOperationRequest.newBuilder()
                    .setName(locationPath(at.project(), at.location()) + "/operations/" + name).build());
        } catch (RuntimeException e) {
            ProviderException failure = translate(e);
            if (failure.kind() == Kind.NOT_FOUND) {
                // GKE forgets old operations: whether it did what it was asked, the cluster shows.
                return OperationStatus.SUCCEEDED;
            }
            throw failure;
        }
        return status(operation);
    }

    private static OperationStatus status(Operation operation) {
        if (operation.getStatus() != Operation.Status.DONE) {
            return OperationStatus.RUNNING;
        }
        if (operation.hasError() && operation.getError().getCode() != 0) {
            return OperationStatus.failed(operation.getError().getMessage().isEmpty()
                    ? operation.getStatusMessage() : operation.getError().getMessage());
        }
        return OperationStatus.SUCCEEDED;
    }

    /**
     * The cluster's operations, found by listing the location's (GKE's {@code listOperations} has no filter, so
     * this reads every operation of the location): any still running, else how the latest ended.
     */
    private OperationStatus latestOperation(ClusterLocator at) {
        Operation latestDone = null;
        for (Operation operation : operationsOf(at)) {
            if (operation.getStatus() != Operation.Status.DONE) {
                return OperationStatus.RUNNING;
            }
            if (latestDone == null || startOf(operation).compareTo(startOf(latestDone)) >= 0) {
                latestDone = operation;
            }
        }
        return latestDone == null ? OperationStatus.SUCCEEDED : status(latestDone);
    }

    /** GKE writes RFC 3339 times with varying fractions: compare them as instants. */
    private static Instant startOf(Operation operation) {
        try {
            return OffsetDateTime.parse(operation.getStartTime()).toInstant();
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    private List<Operation> operationsOf(ClusterLocator at) {
        List<Operation> all;
        try {
            all = client.listOperations(ListOperationsRequest.newBuilder().setParent(locationPath(at.project(), at.location())).build())
                    .getOperationsList();
        } catch (RuntimeException e) {
            throw translate(e);
        }
        String marker = "/clusters/" + at.name();
        List<Operation> mine = new ArrayList<>();
        for (Operation operation : all) {
            String target = operation.getTargetLink();
            int i = target.indexOf(marker);
            if (i >= 0 && (i + marker.length() == target.length() || target.charAt(i + marker.length()) == '/')) {
                mine.add(operation);
            }
        }
        return mine;
    }

    static ClusterObservation toObservation(Cluster cluster) {
        String label = cluster.getResourceLabelsMap().get(ProviderNames.CLUSTER_LABEL);
        MasterAuthorizedNetworksConfig authorized = cluster.getControlPlaneEndpointsConfig().getIpEndpointsConfig().hasAuthorizedNetworksConfig()
                ? cluster.getControlPlaneEndpointsConfig().getIpEndpointsConfig().getAuthorizedNetworksConfig()
                : cluster.getMasterAuthorizedNetworksConfig();
        List<String> cidrs = authorized.getEnabled()
                ? authorized.getCidrBlocksList().stream().map(MasterAuthorizedNetworksConfig.CidrBlock::getCidrBlock).toList()
                : List.of();
        List<NodePoolObservation> pools = cluster.getNodePoolsList().stream().map(GkeClusterProvider::toObservation).toList();
        return new ClusterObservation(
                true,
                label,
                clusterStatus(cluster.getStatus()),
                emptyToNull(cluster.getStatusMessage()),
                cluster.getAutopilot().getEnabled() ? ClusterMode.AUTOPILOT : ClusterMode.STANDARD,
                emptyToNull(cluster.getEndpoint()),
                emptyToNull(cluster.getMasterAuth().getClusterCaCertificate()),
                emptyToNull(cluster.getCurrentMasterVersion()),
                emptyToNull(cluster.getCurrentNodeVersion()),
                channel(cluster.getReleaseChannel().getChannel()),
                cidrs,
                cluster.getNetworkConfig().getDefaultEnablePrivateNodes() || cluster.getPrivateClusterConfig().getEnablePrivateNodes(),
                pools,
                cluster.getIdentityServiceConfig().getEnabled());
    }

    private static NodePoolObservation toObservation(NodePool pool) {
        NodeConfig config = pool.getConfig();
        Autoscaling autoscaling = pool.getAutoscaling().getEnabled()
                ? new Autoscaling(pool.getAutoscaling().getMinNodeCount(), Math.max(1, pool.getAutoscaling().getMaxNodeCount()))
                : null;
        Accelerators accelerator = config.getAcceleratorsCount() == 0 ? null
                : new Accelerators(config.getAccelerators(0).getAcceleratorType(), (int) config.getAccelerators(0).getAcceleratorCount());
        List<Taint> taints = config.getTaintsList().stream()
                .map(t -> new Taint(t.getKey(), emptyToNull(t.getValue()), effect(t.getEffect())))
                .filter(t -> t.effect() != null)
                .toList();
        return new NodePoolObservation(
                pool.getName(),
                poolStatus(pool.getStatus()),
                emptyToNull(pool.getVersion()),
                pool.getInitialNodeCount(),
                autoscaling,
                emptyToNull(config.getMachineType()),
                config.getDiskSizeGb() == 0 ? null : config.getDiskSizeGb(),
                emptyToNull(config.getDiskType()),
                config.getSpot() || config.getPreemptible(),
                accelerator,
                pool.getLocationsList(),
                config.getLabelsMap(),
                taints,
                emptyToNull(pool.getStatusMessage()));
    }

    // ---------------------------------------------------------------- clusters

    @Override
    public String createCluster(ClusterSpec spec) {
        ClusterLocator at = spec.at();
        Cluster.Builder cluster = Cluster.newBuilder()
                .setName(at.name())
                .putResourceLabels(ProviderNames.CLUSTER_LABEL, spec.clusterId())
                .setReleaseChannel(com.google.container.v1.ReleaseChannel.newBuilder().setChannel(channel(spec.releaseChannel())));
        if (spec.version() != null) {
            cluster.setInitialClusterVersion(spec.version());
        }
        if (spec.network() != null) {
            cluster.setNetwork(spec.network());
        }
        if (spec.subnetwork() != null) {
            cluster.setSubnetwork(spec.subnetwork());
        }
        if (!spec.authorizedNetworks().isEmpty()) {
            MasterAuthorizedNetworksConfig authorized = authorizedNetworks(spec.authorizedNetworks());
            cluster.setControlPlaneEndpointsConfig(ControlPlaneEndpointsConfig.newBuilder()
                    .setIpEndpointsConfig(ControlPlaneEndpointsConfig.IPEndpointsConfig.newBuilder()
                            .setEnabled(true)
                            .setAuthorizedNetworksConfig(authorized)));
        }
        if (spec.privateNodes()) {
            cluster.setNetworkConfig(NetworkConfig.newBuilder().setDefaultEnablePrivateNodes(true));
        }
        if (spec.identityService()) {
            // Identity Service for GKE (Standard clusters only): how the cluster trusts the platform's ID tokens, per the
            // ClientConfig the platform writes in it (docs/decisions/gke-parity.md).
            cluster.setIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(true));
        }
        if (spec.mode() == ClusterMode.AUTOPILOT) {
            cluster.setAutopilot(Autopilot.newBuilder().setEnabled(true));
        } else {
            // GKE insists on a node pool at creation: a small temporary one, deleted once ours exist.
            cluster.addNodePools(NodePool.newBuilder()
                    .setName(INITIAL_NODE_POOL)
                    .setInitialNodeCount(1)
                    .setConfig(NodeConfig.newBuilder().setMachineType(INITIAL_POOL_MACHINE_TYPE).setDiskSizeGb(30).setDiskType("pd-standard"))
                    .setManagement(NodeManagement.newBuilder().setAutoUpgrade(true).setAutoRepair(true)));
        }
        try {
            Operation started = client.createCluster(CreateClusterRequest.newBuilder()
                    .setParent(locationPath(at.project(), at.location()))
                    .setCluster(cluster)
                    .build());
            LOG.info("gke: creating cluster {} for {}", at, spec.clusterId());
            return started.getName();
        } catch (RuntimeException e) {
            ProviderException failure = translate(e);
            if (spec.identityService() && refusesIdentityService(failure)) {
                throw new ProviderException(Kind.IDENTITY_SERVICE_REFUSED, failure.getMessage(), e);
            }
            if (failure.kind() != Kind.ALREADY_EXISTS) {
                throw failure;
            }
            ClusterObservation existing = observe(at);
            if (!existing.exists()) {
                throw new ProviderException(Kind.UNAVAILABLE, "Cluster " + at + " was reported to exist and then was gone; try again.");
            }
            if (!spec.clusterId().equals(existing.clusterId())) {
                throw foreign(at, existing.clusterId());
            }
            LOG.info("gke: adopted cluster {} of {}", at, spec.clusterId());
            return null;
        }
    }

    /**
     * GKE refused a create because of its Identity Service setting: a refusal of the request as it is (INVALID_ARGUMENT,
     * FAILED_PRECONDITION) whose message names Identity Service, as GKE's refusal on Autopilot does ("Identity Service for
     * GKE is not supported on Autopilot clusters.") or its field ({@code identity_service_config}, {@code
     * identityServiceConfig}). Anything else (quota, a version, passing trouble) is not about it.
     */
    static boolean refusesIdentityService(ProviderException failure) {
        return (failure.kind() == Kind.INVALID || failure.kind() == Kind.FAILED_PRECONDITION) && failure.getMessage() != null
                && IDENTITY_SERVICE_NAMED.matcher(failure.getMessage()).find();
    }

    private static ProviderException foreign(ClusterLocator at, String label) {
        return new ProviderException(Kind.FOREIGN, "A cluster named " + at + " exists but is not ours: its label "
                + ProviderNames.CLUSTER_LABEL + " is " + (label == null ? "absent" : "\"" + label + "\"") + ". It is left alone.");
    }

    private static MasterAuthorizedNetworksConfig authorizedNetworks(List<String> cidrs) {
        MasterAuthorizedNetworksConfig.Builder config = MasterAuthorizedNetworksConfig.newBuilder().setEnabled(!cidrs.isEmpty());
        cidrs.forEach(c -> config.addCidrBlocks(MasterAuthorizedNetworksConfig.CidrBlock.newBuilder().setCidrBlock(c)));
        return config.build();
    }

    @Override
    public String updateCluster(ClusterLocator at, ClusterChange change) {
        ClusterUpdate.Builder update = ClusterUpdate.newBuilder();
        if (change instanceof ClusterChange.MasterVersion v) {
            update.setDesiredMasterVersion(v.version());
        } else if (change instanceof ClusterChange.Channel c) {
            update.setDesiredReleaseChannel(com.google.container.v1.ReleaseChannel.newBuilder().setChannel(channel(c.channel())));
        } else if (change instanceof ClusterChange.AuthorizedNetworks n) {
            update.setDesiredControlPlaneEndpointsConfig(ControlPlaneEndpointsConfig.newBuilder()
                    .setIpEndpointsConfig(ControlPlaneEndpointsConfig.IPEndpointsConfig.newBuilder()
                            .setAuthorizedNetworksConfig(authorizedNetworks(n.cidrs()))));
        } else if (change instanceof ClusterChange.IdentityService id) {
            update.setDesiredIdentityServiceConfig(IdentityServiceConfig.newBuilder().setEnabled(id.enabled()));
        } else {
            throw new IllegalArgumentException("unknown change " + change);
        }
        try {
            return client.updateCluster(UpdateClusterRequest.newBuilder().setName(clusterPath(at)).setUpdate(update).build()).getName();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    @Override
    public String deleteCluster(ClusterLocator at) {
        // GKE has no conditional delete: the label is read first, so a cluster not ours is never deleted.
        ClusterObservation existing = observe(at);
        if (!existing.exists() || existing.status() == ClusterStatus.STOPPING) {
            return null;
        }
        if (existing.clusterId() == null || !ProviderNames.clusterName(existing.clusterId()).equals(at.name())) {
            throw foreign(at, existing.clusterId());
        }
        try {
            return client.deleteCluster(DeleteClusterRequest.newBuilder().setName(clusterPath(at)).build()).getName();
        } catch (RuntimeException e) {
            ProviderException failure = translate(e);
            if (failure.kind() == Kind.NOT_FOUND) {
                return null;
            }
            if (failure.kind() == Kind.FAILED_PRECONDITION) {
                ClusterObservation now = observe(at);
                if (!now.exists() || now.status() == ClusterStatus.STOPPING) {
                    return null;
                }
            }
            throw failure;
        }
    }

    // ---------------------------------------------------------------- node pools

    @Override
    public String createNodePool(ClusterLocator at, NodePoolSpec spec) {
        NodeConfig.Builder config = NodeConfig.newBuilder()
                .setMachineType(spec.machineType())
                .setSpot(spec.spot())
                .putAllLabels(spec.labels());
        if (spec.diskGiB() > 0) {
            config.setDiskSizeGb(spec.diskGiB());
        }
        if (spec.diskType() != null) {
            config.setDiskType(spec.diskType());
        }
        if (spec.accelerators() != null) {
            config.addAccelerators(AcceleratorConfig.newBuilder()
                    .setAcceleratorType(spec.accelerators().type())
                    .setAcceleratorCount(spec.accelerators().count()));
        }
        spec.taints().forEach(taint -> config.addTaints(nodeTaint(taint)));
        NodePool.Builder pool = NodePool.newBuilder()
                .setName(spec.name())
                .setInitialNodeCount(spec.nodeCount())
                .setConfig(config)
                .addAllLocations(spec.zones())
                .setManagement(NodeManagement.newBuilder().setAutoUpgrade(true).setAutoRepair(true));
        if (spec.autoscaling() != null) {
            pool.setAutoscaling(autoscaling(spec.autoscaling()));
        }
        try {
            return client.createNodePool(CreateNodePoolRequest.newBuilder().setParent(clusterPath(at)).setNodePool(pool).build()).getName();
        } catch (RuntimeException e) {
            ProviderException failure = translate(e);
            if (failure.kind() != Kind.ALREADY_EXISTS) {
                throw failure;
            }
            return null;
        }
    }

    /** A taint without a value is sent with an empty one, as GKE stores it. */
    private static NodeTaint nodeTaint(Taint taint) {
        return NodeTaint.newBuilder().setKey(taint.key()).setValue(taint.value() == null ? "" : taint.value())
                .setEffect(effect(taint.effect())).build();
    }

    private static NodePoolAutoscaling autoscaling(Autoscaling autoscaling) {
        if (autoscaling == null) {
            return NodePoolAutoscaling.newBuilder().setEnabled(false).build();
        }
        return NodePoolAutoscaling.newBuilder()
                .setEnabled(true)
                .setMinNodeCount(autoscaling.minNodes())
                .setMaxNodeCount(autoscaling.maxNodes())
                .build();
    }

    @Override
    public String resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
        try {
            return client.setNodePoolSize(SetNodePoolSizeRequest.newBuilder().setName(poolPath(at, pool)).setNodeCount(nodeCount).build())
                    .getName();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    @Override
    public String setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
        try {
            return client.setNodePoolAutoscaling(SetNodePoolAutoscalingRequest.newBuilder()
                    .setName(poolPath(at, pool))
                    .setAutoscaling(autoscaling(autoscaling))
                    .build()).getName();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    /**
     * {@code updateNodePool} with only labels and taints set: GKE replaces both lists on the pool's nodes in
     * place. No node version is sent, so the call never upgrades the nodes as a side effect.
     */
    @Override
    public String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, Map<String, String> labels, List<Taint> taints) {
        com.google.container.v1.NodeTaints.Builder nodeTaints = com.google.container.v1.NodeTaints.newBuilder();
        taints.forEach(taint -> nodeTaints.addTaints(nodeTaint(taint)));
        try {
            return client.updateNodePool(com.google.container.v1.UpdateNodePoolRequest.newBuilder()
                    .setName(poolPath(at, pool))
                    .setLabels(com.google.container.v1.NodeLabels.newBuilder().putAllLabels(labels))
                    .setTaints(nodeTaints)
                    .build()).getName();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    @Override
    public String deleteNodePool(ClusterLocator at, String pool) {
        try {
            return client.deleteNodePool(DeleteNodePoolRequest.newBuilder().setName(poolPath(at, pool)).build()).getName();
        } catch (RuntimeException e) {
            ProviderException failure = translate(e);
            if (failure.kind() == Kind.NOT_FOUND) {
                return null;
            }
            if (failure.kind() == Kind.FAILED_PRECONDITION) {
                ClusterObservation now = observe(at);
                if (!now.exists() || now.nodePool(pool).map(p -> p.status() == NodePoolStatus.STOPPING).orElse(true)) {
                    return null;
                }
            }
            throw failure;
        }
    }

    // ---------------------------------------------------------------- versions

    @Override
    public ServerConfig serverConfig(String project, String location) {
        com.google.container.v1.ServerConfig config;
        try {
            config = client.getServerConfig(GetServerConfigRequest.newBuilder().setName(locationPath(project, location)).build());
        } catch (RuntimeException e) {
            throw translate(e);
        }
        Map<ReleaseChannel, ServerConfig.ChannelVersions> channels = new EnumMap<>(ReleaseChannel.class);
        for (com.google.container.v1.ServerConfig.ReleaseChannelConfig channel : config.getChannelsList()) {
            ReleaseChannel ours = channel(channel.getChannel());
            if (ours != null) {
                channels.put(ours, new ServerConfig.ChannelVersions(channel.getDefaultVersion(), channel.getValidVersionsList()));
            }
        }
        return new ServerConfig(config.getDefaultClusterVersion(), config.getValidMasterVersionsList(), channels);
    }

    // ---------------------------------------------------------------- mappings

    static ReleaseChannel channel(com.google.container.v1.ReleaseChannel.Channel channel) {
        return switch (channel) {
            case RAPID -> ReleaseChannel.RAPID;
            case REGULAR -> ReleaseChannel.REGULAR;
            case STABLE -> ReleaseChannel.STABLE;
            case EXTENDED -> ReleaseChannel.EXTENDED;
            default -> null;
        };
    }

    static com.google.container.v1.ReleaseChannel.Channel channel(ReleaseChannel channel) {
        if (channel == null) {
            return com.google.container.v1.ReleaseChannel.Channel.UNSPECIFIED;
        }
        return switch (channel) {
            case RAPID -> com.google.container.v1.ReleaseChannel.Channel.RAPID;
            case REGULAR -> com.google.container.v1.ReleaseChannel.Channel.REGULAR;
            case STABLE -> com.google.container.v1.ReleaseChannel.Channel.STABLE;
            case EXTENDED -> com.google.container.v1.ReleaseChannel.Channel.EXTENDED;
        };
    }

    private static ClusterStatus clusterStatus(Cluster.Status status) {
        return switch (status) {
            case PROVISIONING -> ClusterStatus.PROVISIONING;
            case RUNNING -> ClusterStatus.RUNNING;
            case RECONCILING -> ClusterStatus.RECONCILING;
            case STOPPING -> ClusterStatus.STOPPING;
            case ERROR -> ClusterStatus.ERROR;
            case DEGRADED -> ClusterStatus.DEGRADED;
            default -> null;
        };
    }

    private static NodePoolStatus poolStatus(NodePool.Status status) {
        return switch (status) {
            case PROVISIONING -> NodePoolStatus.PROVISIONING;
            case RUNNING -> NodePoolStatus.RUNNING;
            case RUNNING_WITH_ERROR -> NodePoolStatus.RUNNING_WITH_ERROR;
            case RECONCILING -> NodePoolStatus.RECONCILING;
            case STOPPING -> NodePoolStatus.STOPPING;
            case ERROR -> NodePoolStatus.ERROR;
            default -> null;
        };
    }

    private static TaintEffect effect(NodeTaint.Effect effect) {
        return switch (effect) {
            case NO_SCHEDULE -> TaintEffect.NoSchedule;
            case PREFER_NO_SCHEDULE -> TaintEffect.PreferNoSchedule;
            case NO_EXECUTE -> TaintEffect.NoExecute;
            default -> null;
        };
    }

    private static NodeTaint.Effect effect(TaintEffect effect) {
        return switch (effect) {
            case NoSchedule -> NodeTaint.Effect.NO_SCHEDULE;
            case PreferNoSchedule -> NodeTaint.Effect.PREFER_NO_SCHEDULE;
            case NoExecute -> NodeTaint.Effect.NO_EXECUTE;
        };
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /**
     * A client failure as a {@link ProviderException}, with the provider's own message (and no cause:
     * the library's exception is logged here, it does not travel). Over REST
     * the HTTP status is ambiguous (409 is ALREADY_EXISTS or ABORTED, 400 INVALID_ARGUMENT or
     * FAILED_PRECONDITION) and the message hides in the cause: both are read from the error body.
     */
    static ProviderException translate(RuntimeException e) {
        if (e instanceof ProviderException p) {
            return p;
        }
        if (!(e instanceof ApiException api)) {
            LOG.warn("gke: the call failed before reaching GKE", e);
            return new ProviderException(Kind.UNAVAILABLE, "GKE could not be reached: " + e.getMessage());
        }
        String code = api.getStatusCode().getCode().name();
        String message = e.getMessage();
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpResponseException http && http.getContent() != null) {
                Struct error = errorBody(http.getContent());
                if (error != null) {
                    if (error.containsFields("status") && !error.getFieldsOrThrow("status").getStringValue().isEmpty()) {
                        code = error.getFieldsOrThrow("status").getStringValue();
                    }
                    if (error.containsFields("message")) {
                        message = error.getFieldsOrThrow("message").getStringValue();
                    }
                }
                break;
            }
            if (cause instanceof io.grpc.StatusRuntimeException grpc) {
                Status status = grpc.getStatus();
                if (status.getDescription() != null) {
                    message = status.getDescription();
                }
                break;
            }
        }
        Kind kind = switch (code) {
            case "NOT_FOUND" -> Kind.NOT_FOUND;
            case "ALREADY_EXISTS" -> Kind.ALREADY_EXISTS;
            case "INVALID_ARGUMENT", "OUT_OF_RANGE" -> Kind.INVALID;
            case "FAILED_PRECONDITION", "ABORTED" -> Kind.FAILED_PRECONDITION;
            case "RESOURCE_EXHAUSTED" -> Kind.QUOTA;
            case "PERMISSION_DENIED", "UNAUTHENTICATED" -> Kind.PERMISSION_DENIED;
            case "UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED" -> Kind.UNAVAILABLE;
            default -> Kind.INTERNAL;
        };
        // the library's exception stays here (no gax type reaches application): logged, not chained
        if (kind == Kind.INTERNAL || kind == Kind.UNAVAILABLE || kind == Kind.PERMISSION_DENIED) {
            LOG.warn("gke: {} from GKE: {}", code, message, e);
        } else {
            LOG.debug("gke: {} from GKE: {}", code, message);
        }
        return new ProviderException(kind, message);
    }

    private static Struct errorBody(String content) {
        try {
            Struct.Builder body = Struct.newBuilder();
            JsonFormat.parser().ignoringUnknownFields().merge(content, body);
            Value error = body.getFieldsMap().get("error");
            return error == null ? null : error.getStructValue();
        } catch (Exception notJson) {
            return null;
        }
    }
}
