package com.bettercompute.adapters.gke.simulator;

import com.google.container.v1.CancelOperationRequest;
import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterManagerGrpc;
import com.google.container.v1.ClusterUpdate;
import com.google.container.v1.CreateClusterRequest;
import com.google.container.v1.CreateNodePoolRequest;
import com.google.container.v1.DeleteClusterRequest;
import com.google.container.v1.DeleteNodePoolRequest;
import com.google.container.v1.GetClusterRequest;
import com.google.container.v1.GetNodePoolRequest;
import com.google.container.v1.GetOperationRequest;
import com.google.container.v1.GetServerConfigRequest;
import com.google.container.v1.ListClustersRequest;
import com.google.container.v1.ListClustersResponse;
import com.google.container.v1.ListNodePoolsRequest;
import com.google.container.v1.ListNodePoolsResponse;
import com.google.container.v1.ListOperationsRequest;
import com.google.container.v1.ListOperationsResponse;
import com.google.container.v1.MasterAuth;
import com.google.container.v1.MasterAuthorizedNetworksConfig;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodeManagement;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.Operation;
import com.google.container.v1.PrivateClusterConfig;
import com.google.container.v1.ReleaseChannel;
import com.google.container.v1.ReleaseChannel.Channel;
import com.google.container.v1.ServerConfig;
import com.google.container.v1.SetLabelsRequest;
import com.google.container.v1.SetNodePoolAutoscalingRequest;
import com.google.container.v1.SetNodePoolSizeRequest;
import com.google.container.v1.UpdateClusterRequest;
import com.google.container.v1.UpdateMasterRequest;
import com.google.container.v1.UpdateNodePoolRequest;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Empty;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator's one stateful core: GKE's {@code ClusterManager} service, served as it is over
 * gRPC and behind the REST front end. State is projects → locations → clusters → node pools, plus
 * operations. Time comes from the injected clock: an operation is DONE once its duration has
 * passed, evaluated lazily at the start of every call. One lock guards everything.
 */
final class SimulatorCore extends ClusterManagerGrpc.ClusterManagerImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(SimulatorCore.class);
    private static final String API = "https://container.googleapis.com/v1/";
    private static final Pattern NAME = Pattern.compile("[a-z]([-a-z0-9]{0,38}[a-z0-9])?");
    private static final Pattern ZONE = Pattern.compile("[a-z]+-[a-z]+[0-9]+-[a-z]");
    private static final Pattern REGION = Pattern.compile("[a-z]+-[a-z]+[0-9]+");
    private static final Pattern CIDR = Pattern.compile("(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2}");
    private static final String CA = loadCa();
    private static final int MAX_OPERATIONS = 5000;

    private final Clock clock;
    private final Faults faults;
    private final Versions versions = new Versions();
    private volatile Duration operationDuration;
    private final Map<String, SimCluster> clusters = new LinkedHashMap<>();
    private final Map<String, SimOperation> operations = new LinkedHashMap<>();
    private long sequence;
    private volatile ClusterEndpoints endpoints;
    /** Where acknowledged changes are made durable; null: state lives in memory only. */
    private final StateLog log;
    /** What changed since the last save: cluster paths and operation ids, saved as they are then (or as gone). */
    private final Set<String> changedClusters = new LinkedHashSet<>();
    private final Set<String> changedOperations = new LinkedHashSet<>();
    private final Changes changed = new Changes();

    /**
     * @param stateDirectory null to keep state in memory only; else the directory of the state log, read
     *                       now (operations that were running go on by {@code clock}) and appended to before
     *                       every answer that changed something
     */
    SimulatorCore(Clock clock, Duration operationDuration, Faults faults, Path stateDirectory) throws IOException {
        this.clock = clock;
        this.operationDuration = operationDuration;
        this.faults = faults;
        this.log = stateDirectory == null ? null : StateLog.open(stateDirectory, this::replay, this::everything);
        changed.clear();
        if (log != null) {
            LOG.info("gke simulator: {} clusters and {} operations restored from {}", clusters.size(), operations.size(), stateDirectory);
        }
    }

    /** Records what a call changed, so {@link #save()} writes exactly that. */
    private final class Changes {
        void cluster(String path) {
            changedClusters.add(path);
        }

        void operation(String id) {
            changedOperations.add(id);
        }

        void clear() {
            changedClusters.clear();
            changedOperations.clear();
        }
    }

    private void replay(byte[] entry) {
        SavedState.replay(entry, new SavedState.Target() {
            @Override
            public void cluster(SimCluster cluster) {
                clusters.put(cluster.ref.clusterPath(), cluster);
            }

            @Override
            public void clusterGone(String path) {
                clusters.remove(path);
            }

            @Override
            public void operation(SimOperation operation) {
                operations.put(operation.op.getName(), operation);
            }

            @Override
            public void operationGone(String id) {
                operations.remove(id);
            }

            @Override
            public void sequence(long saved) {
                sequence = saved;
            }
        });
    }

    /** The whole state as log entries: what a compacted log holds. */
    private List<byte[]> everything() {
        List<byte[]> entries = new ArrayList<>();
        entries.add(SavedState.sequence(sequence));
        clusters.values().forEach(c -> entries.add(SavedState.cluster(c)));
        operations.values().forEach(o -> entries.add(SavedState.operation(o)));
        return entries;
    }

    /**
     * Makes what changed durable before the caller answers; called under the lock at the end of every
     * call. A failed write fails the call (UNAVAILABLE): the change may have happened, as with any
     * unanswered call, and the next save rewrites the whole state.
     */
    private void save() {
        if (log == null || (changedClusters.isEmpty() && changedOperations.isEmpty())) {
            changed.clear();
            return;
        }
        List<byte[]> entries = new ArrayList<>();
        entries.add(SavedState.sequence(sequence));
        for (String path : changedClusters) {
            SimCluster cluster = clusters.get(path);
            entries.add(cluster == null ? SavedState.clusterGone(path) : SavedState.cluster(cluster));
        }
        for (String id : changedOperations) {
            SimOperation operation = operations.get(id);
            entries.add(operation == null ? SavedState.operationGone(id) : SavedState.operation(operation));
        }
        try {
            log.append(entries, this::everything);
        } catch (IOException e) {
            LOG.error("gke simulator: the state could not be saved: {}", e.getMessage());
            throw Status.UNAVAILABLE.withDescription("The GKE simulator could not save its state; try again.").asRuntimeException();
        }
        changed.clear();
    }

    synchronized void close() {
        if (log != null) {
            log.close();
        }
    }

    static final class SimCluster {
        final Ref ref;
        final Cluster.Builder cluster;
        final Map<String, NodePool.Builder> pools = new LinkedHashMap<>();

        SimCluster(Ref ref, Cluster.Builder cluster) {
            this.ref = ref;
            this.cluster = cluster;
        }
    }

    /**
     * An operation and what it does when it ends. {@code clusterId} is the id of the cluster it acts on,
     * so an operation outliving its cluster (deleted behind the back, recreated under the same name)
     * leaves the new one alone.
     */
    static final class SimOperation {
        final Operation.Builder op;
        final String project;
        final String clusterPath;
        final String clusterId;
        final Instant startedAt;
        final Instant doneAt;
        final String failure;
        final Effect effect;

        SimOperation(Operation.Builder op, String project, String clusterPath, String clusterId, Instant startedAt, Instant doneAt,
                String failure, Effect effect) {
            this.op = op;
            this.project = project;
            this.clusterPath = clusterPath;
            this.clusterId = clusterId;
            this.startedAt = startedAt;
            this.doneAt = doneAt;
            this.failure = failure;
            this.effect = effect;
        }

        boolean running() {
            return op.getStatus() != Operation.Status.DONE;
        }
    }

    // ---------------------------------------------------------------- plumbing

    private <T> void respond(StreamObserver<T> out, Supplier<T> body) {
        T result;
        try {
            synchronized (this) {
                settle();
                result = body.get();
                if (operationDuration.isZero()) {
                    settle();
                    result = refresh(result);
                }
                save();
            }
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        } catch (RuntimeException e) {
            LOG.error("gke simulator: unexpected failure", e);
            out.onError(Status.INTERNAL.withDescription("Internal error in the GKE simulator.").asRuntimeException());
            return;
        }
        out.onNext(result);
        out.onCompleted();
    }

    @SuppressWarnings("unchecked")
    private <T> T refresh(T result) {
        if (result instanceof Operation op && operations.containsKey(op.getName())) {
            return (T) operations.get(op.getName()).op.build();
        }
        return result;
    }

    /**
     * Moves every operation along: PENDING until the clock has moved past its start, RUNNING until
     * its duration has passed, then DONE (with its error, if it was made to fail). In start order.
     */
    private void settle() {
        Instant now = clock.instant();
        for (SimOperation operation : List.copyOf(operations.values())) {
            if (!operation.running()) {
                continue;
            }
            if (!operation.doneAt.isAfter(now)) {
                finish(operation, operation.failure);
            } else if (operation.op.getStatus() == Operation.Status.PENDING && now.isAfter(operation.startedAt)) {
                operation.op.setStatus(Operation.Status.RUNNING);
            }
        }
        prune();
    }

    private void finish(SimOperation operation, String failure) {
        operation.op.setStatus(Operation.Status.DONE).setEndTime(time(operation.doneAt.isAfter(clock.instant()) ? clock.instant() : operation.doneAt));
        if (failure != null) {
            operation.op.setError(com.google.rpc.Status.newBuilder().setCode(Status.Code.INTERNAL.value()).setMessage(failure))
                    .setStatusMessage(failure);
        }
        changed.operation(operation.op.getName());
        SimCluster cluster = clusters.get(operation.clusterPath);
        if (cluster == null || !cluster.cluster.getId().equals(operation.clusterId)) {
            return;
        }
        changed.cluster(operation.clusterPath);
        apply(cluster, operation.effect, failure);
    }

    /** What an operation does when it ends: {@code failure} null when it succeeded. */
    private void apply(SimCluster sim, Effect effect, String failure) {
        Cluster.Builder c = sim.cluster;
        if (effect instanceof Effect.CreateCluster) {
            if (c.getStatus() == Cluster.Status.PROVISIONING) {
                if (failure == null) {
                    c.setStatus(Cluster.Status.RUNNING);
                    sim.pools.values().stream().filter(p -> p.getStatus() == NodePool.Status.PROVISIONING)
                            .forEach(p -> p.setStatus(NodePool.Status.RUNNING));
                } else {
                    c.setStatus(Cluster.Status.ERROR).setStatusMessage(failure);
                    sim.pools.values().forEach(p -> p.setStatus(NodePool.Status.ERROR).setStatusMessage(failure));
                }
            }
        } else if (effect instanceof Effect.DeleteCluster delete) {
            if (failure == null) {
                clusters.remove(sim.ref.clusterPath());
                ClusterEndpoints api = endpoints;
                if (api != null) {
                    api.gone(sim.ref.project(), sim.ref.location(), sim.ref.cluster());
                }
            } else {
                c.setStatus(delete.before() == Cluster.Status.ERROR ? Cluster.Status.ERROR : Cluster.Status.RUNNING).setStatusMessage(failure);
                sim.pools.values().forEach(p -> p.setStatus(NodePool.Status.RUNNING));
            }
        } else if (effect instanceof Effect.ChangeCluster change) {
            if (c.getStatus() == Cluster.Status.RECONCILING) {
                if (failure == null) {
                    change(c, change.change());
                }
                c.setStatus(Cluster.Status.RUNNING);
            }
        } else if (effect instanceof Effect.CreatePool create) {
            NodePool.Builder pool = sim.pools.get(create.pool());
            if (pool != null && pool.getStatus() == NodePool.Status.PROVISIONING) {
                if (failure == null) {
                    pool.setStatus(NodePool.Status.RUNNING);
                } else {
                    pool.setStatus(NodePool.Status.ERROR).setStatusMessage(failure);
                }
            }
        } else if (effect instanceof Effect.DeletePool delete) {
            if (failure == null) {
                sim.pools.remove(delete.pool());
            } else if (sim.pools.containsKey(delete.pool())) {
                sim.pools.get(delete.pool()).setStatus(delete.before());
            }
        } else if (!(effect instanceof Effect.Nothing)) {
            changePool(sim, effect, failure);
        }
    }

    private static void change(Cluster.Builder c, ClusterUpdate change) {
        if (!change.getDesiredMasterVersion().isEmpty()) {
            c.setCurrentMasterVersion(change.getDesiredMasterVersion());
        }
        if (change.hasDesiredReleaseChannel()) {
            c.setReleaseChannel(change.getDesiredReleaseChannel());
        }
        if (change.hasDesiredMasterAuthorizedNetworksConfig()) {
            setAuthorizedNetworks(c, change.getDesiredMasterAuthorizedNetworksConfig());
        }
        if (change.hasDesiredIdentityServiceConfig()) {
            c.setIdentityServiceConfig(change.getDesiredIdentityServiceConfig());
        }
        if (change.hasDesiredDefaultEnablePrivateNodes()) {
            c.getNetworkConfigBuilder().setDefaultEnablePrivateNodes(change.getDesiredDefaultEnablePrivateNodes());
            c.getPrivateClusterConfigBuilder().setEnablePrivateNodes(change.getDesiredDefaultEnablePrivateNodes());
        }
    }

    /** A change to a pool made while it is RECONCILING: applied on success, dropped on failure; RUNNING again either way. */
    private static void changePool(SimCluster sim, Effect effect, String failure) {
        String name = effect instanceof Effect.ResizePool r ? r.pool()
                : effect instanceof Effect.AutoscalePool a ? a.pool()
                : effect instanceof Effect.RelabelPool l ? l.pool()
                : ((Effect.UpgradePool) effect).pool();
        NodePool.Builder pool = sim.pools.get(name);
        if (pool == null || pool.getStatus() != NodePool.Status.RECONCILING) {
            return;
        }
        if (failure == null) {
            if (effect instanceof Effect.ResizePool r) {
                pool.setInitialNodeCount(r.nodeCount());
            } else if (effect instanceof Effect.AutoscalePool a) {
                pool.setAutoscaling(a.autoscaling());
            } else if (effect instanceof Effect.RelabelPool l) {
                if (l.labels() != null) {
                    pool.getConfigBuilder().clearLabels().putAllLabels(l.labels().getLabelsMap());
                }
                if (l.taints() != null) {
                    pool.getConfigBuilder().clearTaints().addAllTaints(l.taints().getTaintsList());
                }
            } else {
                pool.setVersion(((Effect.UpgradePool) effect).version());
            }
        }
        pool.setStatus(NodePool.Status.RUNNING);
    }

    /** Forgets the oldest finished operations beyond a bound, so a long-running simulator does not grow without end. */
    private void prune() {
        if (operations.size() <= MAX_OPERATIONS) {
            return;
        }
        var iterator = operations.values().iterator();
        while (operations.size() > MAX_OPERATIONS * 3 / 4 && iterator.hasNext()) {
            SimOperation operation = iterator.next();
            if (!operation.running()) {
                iterator.remove();
                changed.operation(operation.op.getName());
            }
        }
    }

    private Operation start(SimCluster cluster, Operation.Type type, String targetLink, Effect effect) {
        return start(cluster, type, targetLink, effect, true);
    }

    private Operation start(SimCluster cluster, Operation.Type type, String targetLink, Effect effect, boolean mayFail) {
        Instant now = clock.instant();
        sequence++;
        String id = String.format("operation-%d-%08x", now.toEpochMilli(), (sequence * 2654435761L) & 0xffffffffL);
        Ref ref = cluster.ref;
        Operation.Builder op = Operation.newBuilder()
                .setName(id)
                .setZone(ref.location())
                .setLocation(ref.location())
                .setOperationType(type)
                .setStatus(Operation.Status.PENDING)
                .setSelfLink(API + ref.locationPath() + "/operations/" + id)
                .setTargetLink(targetLink)
                .setStartTime(time(now));
        String failure = mayFail ? faults.nextOperationFailure() : null;
        operations.put(id, new SimOperation(op, ref.project(), ref.clusterPath(), cluster.cluster.getId(), now, now.plus(operationDuration),
                failure, effect));
        changed.operation(id);
        changed.cluster(ref.clusterPath());
        return op.build();
    }

    private static String time(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant);
    }

    private SimCluster find(Ref ref) {
        SimCluster cluster = clusters.get(ref.clusterPath());
        if (cluster == null) {
            throw Status.NOT_FOUND.withDescription("Not found: " + ref.clusterPath() + ".").asRuntimeException();
        }
        return cluster;
    }

    private NodePool.Builder findPool(SimCluster cluster, Ref ref) {
        NodePool.Builder pool = cluster.pools.get(ref.nodePool());
        if (pool == null) {
            throw Status.NOT_FOUND.withDescription("Not found: " + ref.nodePoolPath() + ".").asRuntimeException();
        }
        return pool;
    }

    private SimOperation runningOperation(SimCluster cluster) {
        for (SimOperation operation : operations.values()) {
            if (operation.running() && operation.clusterPath.equals(cluster.ref.clusterPath())) {
                return operation;
            }
        }
        return null;
    }

    /** GKE runs one operation per cluster at a time, and changes only a running cluster. */
    private void requireIdle(SimCluster cluster) {
        SimOperation running = runningOperation(cluster);
        if (running != null) {
            throw Status.FAILED_PRECONDITION.withDescription("Cluster is running incompatible operation " + running.op.getName() + ".")
                    .asRuntimeException();
        }
        Cluster.Status status = cluster.cluster.getStatus();
        if (status != Cluster.Status.RUNNING && status != Cluster.Status.DEGRADED) {
            throw Status.FAILED_PRECONDITION.withDescription("Cluster \"" + cluster.ref.cluster() + "\" is not ready: its status is "
                    + status + ".").asRuntimeException();
        }
    }

    private static void checkLocation(String location) {
        if (!ZONE.matcher(location).matches() && !REGION.matcher(location).matches() && !location.equals("-")) {
            throw Status.INVALID_ARGUMENT.withDescription("Location \"" + location + "\" is not a valid zone or region.").asRuntimeException();
        }
    }

    private static boolean regional(String location) {
        return REGION.matcher(location).matches();
    }

    private static String region(String location) {
        return regional(location) ? location : location.substring(0, location.lastIndexOf('-'));
    }

    private Cluster snapshot(SimCluster cluster) {
        Cluster.Builder out = cluster.cluster.clone().clearNodePools();
        List<String> nodeVersions = new ArrayList<>();
        int nodes = 0;
        for (NodePool.Builder pool : cluster.pools.values()) {
            out.addNodePools(pool.build());
            nodeVersions.add(pool.getVersion());
            nodes += pool.getInitialNodeCount() * Math.max(1, pool.getLocationsCount());
        }
        String nodeVersion = nodeVersions.isEmpty() ? out.getCurrentMasterVersion() : Versions.oldest(nodeVersions);
        out.setCurrentNodeVersion(nodeVersion).setCurrentNodeCount(nodes);
        ClusterEndpoints api = endpoints;
        if (api != null && hasApi(cluster)) {
            ClusterEndpoints.Endpoint at = api.endpointFor(cluster.ref.project(), cluster.ref.location(), cluster.ref.cluster());
            out.setEndpoint(at.address());
            out.getMasterAuthBuilder().setClusterCaCertificate(at.caCertificateBase64());
        }
        if (!cluster.pools.isEmpty()) {
            NodePool first = cluster.pools.values().iterator().next().build();
            out.setNodeConfig(first.getConfig());
        }
        return out.build();
    }

    /** A cluster's control plane answers once it has come up: from RUNNING on, until it is being deleted. */
    private static boolean hasApi(SimCluster cluster) {
        Cluster.Status status = cluster.cluster.getStatus();
        return status == Cluster.Status.RUNNING || status == Cluster.Status.RECONCILING || status == Cluster.Status.DEGRADED;
    }

    void clusterEndpoints(ClusterEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    /**
     * The node pools of a cluster whose control plane answers, with their node counts over all zones; pools
     * still being created are left out. Null when there is no such cluster, or it does not answer.
     */
    synchronized Map<String, Integer> nodeCounts(String project, String location, String clusterName) {
        Map<String, NodePool> pools = nodePools(project, location, clusterName);
        if (pools == null) {
            return null;
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        pools.forEach((name, pool) -> counts.put(name, nodeCount(pool)));
        return counts;
    }

    /** A running cluster's control plane version (GKE's form: {@code 1.33.5-gke.1080000}), or null when no such cluster runs. */
    synchronized String masterVersion(String project, String location, String clusterName) {
        SimCluster cluster = withApi(project, location, clusterName);
        return cluster == null ? null : cluster.cluster.getCurrentMasterVersion();
    }

    /** Whether a running cluster has Identity Service for GKE enabled; false when no such cluster runs. */
    synchronized boolean identityService(String project, String location, String clusterName) {
        SimCluster cluster = withApi(project, location, clusterName);
        return cluster != null && cluster.cluster.getIdentityServiceConfig().getEnabled();
    }

    /** The node pools whose nodes exist (as {@link #nodeCounts}), as the API reports them; null as there. */
    synchronized Map<String, NodePool> nodePools(String project, String location, String clusterName) {
        SimCluster cluster = withApi(project, location, clusterName);
        if (cluster == null) {
            return null;
        }
        Map<String, NodePool> pools = new LinkedHashMap<>();
        cluster.pools.forEach((name, pool) -> {
            if (pool.getStatus() != NodePool.Status.PROVISIONING && pool.getStatus() != NodePool.Status.ERROR) {
                pools.put(name, pool.build());
            }
        });
        return pools;
    }

    /** The cluster, once its operations due by now have ended, if it runs with a Kubernetes API; else null. */
    private SimCluster withApi(String project, String location, String clusterName) {
        settle();
        save();
        SimCluster cluster = clusters.get(new Ref(project, location, clusterName, null, null).clusterPath());
        return cluster == null || !hasApi(cluster) ? null : cluster;
    }

    /** A pool's nodes over all its zones. */
    static int nodeCount(NodePool pool) {
        return pool.getInitialNodeCount() * Math.max(1, pool.getLocationsCount());
    }

    private static String fingerprint(Map<String, String> labels) {
        CRC32 crc = new CRC32();
        crc.update("labels:".getBytes(StandardCharsets.UTF_8));
        new TreeMap<>(labels).forEach((k, v) -> crc.update((k + "=" + v + ";").getBytes(StandardCharsets.UTF_8)));
        return String.format("%08x", crc.getValue());
    }

    private static String loadCa() {
        try (InputStream in = SimulatorCore.class.getResourceAsStream("cluster-ca.pem")) {
            if (in == null) {
                throw new IllegalStateException("cluster-ca.pem is missing from the simulator's resources");
            }
            return Base64.getEncoder().encodeToString(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- clusters

    @Override
    public void listClusters(ListClustersRequest request, StreamObserver<ListClustersResponse> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getParent(), request.getProjectId(), request.getZone(), null, null, null).requireLocation();
            checkLocation(ref.location());
            ListClustersResponse.Builder response = ListClustersResponse.newBuilder();
            for (SimCluster cluster : clusters.values()) {
                if (cluster.ref.project().equals(ref.project())
                        && (ref.location().equals("-") || cluster.ref.location().equals(ref.location()))) {
                    response.addClusters(snapshot(cluster));
                }
            }
            return response.build();
        });
    }

    @Override
    public void getCluster(GetClusterRequest request, StreamObserver<Cluster> out) {
        respond(out, () -> snapshot(find(Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null)
                .requireCluster())));
    }

    @Override
    public void createCluster(CreateClusterRequest request, StreamObserver<Operation> out) {
        respond(out, () -> createCluster(request));
    }

    private Operation createCluster(CreateClusterRequest request) {
        Ref at = Ref.of(request.getParent(), request.getProjectId(), request.getZone(), null, null, null).requireLocation();
        checkLocation(at.location());
        if (at.location().equals("-")) {
            throw Ref.invalid("A cluster is created in one location, not \"-\".");
        }
        Cluster in = request.getCluster();
        if (!NAME.matcher(in.getName()).matches()) {
            throw Ref.invalid("Invalid value for field \"cluster.name\": \"" + in.getName()
                    + "\". Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only alphanumerics and '-' allowed, "
                    + "must start with a letter and end with an alphanumeric, and must be no longer than 40 characters).");
        }
        Ref ref = new Ref(at.project(), at.location(), in.getName(), null, null);
        if (clusters.containsKey(ref.clusterPath())) {
            throw Status.ALREADY_EXISTS.withDescription("Already exists: " + ref.clusterPath() + ".").asRuntimeException();
        }
        boolean autopilot = in.getAutopilot().getEnabled();
        List<NodePool> requestedPools = new ArrayList<>(in.getNodePoolsList());
        if (autopilot) {
            if (!regional(at.location())) {
                throw Ref.invalid("Autopilot clusters must be regional clusters.");
            }
            // gcloud's create-auto sends a default-pool: GKE keeps it as the pool it manages itself.
            if (in.getIdentityServiceConfig().getEnabled()) {
                throw Ref.invalid("Identity Service for GKE is not supported on Autopilot clusters.");
            }
        } else if (requestedPools.isEmpty()) {
            if (in.getInitialNodeCount() <= 0) {
                throw Ref.invalid("Cluster.initial_node_count must be greater than zero.");
            }
            requestedPools.add(NodePool.newBuilder().setName("default-pool").setInitialNodeCount(in.getInitialNodeCount())
                    .setConfig(in.getNodeConfig()).build());
        } else if (in.getInitialNodeCount() > 0) {
            throw Ref.invalid("Cluster.initial_node_count and Cluster.node_pools are mutually exclusive.");
        }
        if (!autopilot && in.getIdentityServiceConfig().getEnabled()) {
            faults.checkIdentityService(at.project());
        }
        Channel channel = in.hasReleaseChannel() ? in.getReleaseChannel().getChannel() : Channel.REGULAR;
        if (channel == Channel.UNRECOGNIZED) {
            channel = Channel.UNSPECIFIED;
        }
        if (autopilot && channel == Channel.UNSPECIFIED) {
            channel = Channel.REGULAR;
        }
        String version = versions.resolve(in.getInitialClusterVersion(), channel);
        if (!autopilot) {
            faults.checkQuota(at.project(), "the cluster's nodes");
        }
        sequence++;
        Instant now = clock.instant();
        String selfLink = API + ref.clusterPath();
        List<String> locations = in.getLocationsCount() > 0 ? in.getLocationsList()
                : regional(at.location()) ? List.of(at.location() + "-a", at.location() + "-b", at.location() + "-c") : List.of(at.location());
        checkZones(at.location(), locations);
        String endpoint = "34.118." + (sequence / 250 % 250) + "." + (sequence % 250 + 2);
        boolean privateNodes = in.getNetworkConfig().getDefaultEnablePrivateNodes() || in.getPrivateClusterConfig().getEnablePrivateNodes();
        MasterAuthorizedNetworksConfig authorized = in.getControlPlaneEndpointsConfig().getIpEndpointsConfig().hasAuthorizedNetworksConfig()
                ? in.getControlPlaneEndpointsConfig().getIpEndpointsConfig().getAuthorizedNetworksConfig()
                : in.getMasterAuthorizedNetworksConfig();
        checkCidrs(authorized);
        Cluster.Builder cluster = in.toBuilder()
                .clearNodePools()
                .clearInitialNodeCount()
                .setLocation(at.location())
                .setZone(at.location())
                .setSelfLink(selfLink)
                .setId(String.format("%016x%016x", ref.clusterPath().hashCode() * 0x9E3779B97F4A7C15L, sequence * 0xC2B2AE3D27D4EB4FL))
                .setCreateTime(time(now))
                .setStatus(Cluster.Status.PROVISIONING)
                .setEndpoint(endpoint)
                .setMasterAuth(MasterAuth.newBuilder(in.getMasterAuth()).setClusterCaCertificate(CA))
                .setInitialClusterVersion(version)
                .setCurrentMasterVersion(version)
                .setCurrentNodeVersion(version)
                .setLabelFingerprint(fingerprint(in.getResourceLabelsMap()))
                .setNetwork(in.getNetwork().isEmpty() ? "default" : in.getNetwork())
                .setSubnetwork(in.getSubnetwork().isEmpty() ? "default" : in.getSubnetwork())
                .setReleaseChannel(ReleaseChannel.newBuilder().setChannel(channel))
                .clearLocations().addAllLocations(locations)
                .setClusterIpv4Cidr(in.getClusterIpv4Cidr().isEmpty() ? "10.4.0.0/14" : in.getClusterIpv4Cidr())
                .setServicesIpv4Cidr("34.118.224.0/20")
                .setLoggingService(in.getLoggingService().isEmpty() ? "logging.googleapis.com/kubernetes" : in.getLoggingService())
                .setMonitoringService(in.getMonitoringService().isEmpty() ? "monitoring.googleapis.com/kubernetes" : in.getMonitoringService());
        cluster.getNetworkConfigBuilder().setDefaultEnablePrivateNodes(privateNodes)
                .setNetwork("projects/" + at.project() + "/global/networks/" + cluster.getNetwork())
                .setSubnetwork("projects/" + at.project() + "/regions/" + region(at.location()) + "/subnetworks/" + cluster.getSubnetwork());
        PrivateClusterConfig.Builder privateConfig = cluster.getPrivateClusterConfigBuilder().setEnablePrivateNodes(privateNodes)
                .setPrivateEndpoint("10.128.0." + (sequence % 250 + 2));
        if (privateNodes) {
            privateConfig.setPublicEndpoint(endpoint);
        }
        setAuthorizedNetworks(cluster, authorized);
        cluster.getControlPlaneEndpointsConfigBuilder().getIpEndpointsConfigBuilder().setEnabled(true).setEnablePublicEndpoint(true)
                .setPublicEndpoint(endpoint).setPrivateEndpoint(privateConfig.getPrivateEndpoint());
        cluster.getControlPlaneEndpointsConfigBuilder().getDnsEndpointConfigBuilder()
                .setEndpoint("gke-" + cluster.getId().substring(0, 16) + "." + region(at.location()) + ".gke.goog");
        SimCluster sim = new SimCluster(ref, cluster);
        for (NodePool pool : requestedPools) {
            NodePool.Builder built = newPool(sim, pool, version);
            if (sim.pools.putIfAbsent(pool.getName(), built) != null) {
                throw Ref.invalid("Node pool \"" + pool.getName() + "\" is named twice.");
            }
        }
        clusters.put(ref.clusterPath(), sim);
        return start(sim, Operation.Type.CREATE_CLUSTER, selfLink, new Effect.CreateCluster());
    }

    private static void checkZones(String location, List<String> zones) {
        String region = region(location);
        for (String zone : zones) {
            if (!ZONE.matcher(zone).matches() || !zone.startsWith(region + "-")) {
                throw Ref.invalid("Location \"" + zone + "\" is not a zone of region \"" + region + "\".");
            }
        }
    }

    private static void checkCidrs(MasterAuthorizedNetworksConfig config) {
        for (MasterAuthorizedNetworksConfig.CidrBlock block : config.getCidrBlocksList()) {
            if (!CIDR.matcher(block.getCidrBlock()).matches()) {
                throw Ref.invalid("Invalid master authorized networks: \"" + block.getCidrBlock() + "\" is not an IPv4 CIDR block.");
            }
        }
    }

    /** Authorized networks live in two places, the current and the deprecated one: keep both the same. */
    private static void setAuthorizedNetworks(Cluster.Builder cluster, MasterAuthorizedNetworksConfig config) {
        cluster.setMasterAuthorizedNetworksConfig(config);
        cluster.getControlPlaneEndpointsConfigBuilder().getIpEndpointsConfigBuilder().setAuthorizedNetworksConfig(config);
    }

    private NodePool.Builder newPool(SimCluster cluster, NodePool in, String masterVersion) {
        if (!NAME.matcher(in.getName()).matches()) {
            throw Ref.invalid("Invalid value for field \"node_pool.name\": \"" + in.getName() + "\".");
        }
        if (in.getInitialNodeCount() < 0) {
            throw Ref.invalid("Node pool \"" + in.getName() + "\": initial_node_count must not be negative.");
        }
        checkAutoscaling(in.getAutoscaling());
        String version = masterVersion;
        if (!in.getVersion().isEmpty() && !in.getVersion().equals("-")) {
            version = versions.resolve(in.getVersion(), Channel.UNSPECIFIED);
            if (Versions.compare(version, masterVersion) > 0) {
                throw Ref.invalid("Node version \"" + version + "\" must not be newer than the master version \"" + masterVersion + "\".");
            }
        }
        List<String> locations = in.getLocationsCount() > 0 ? in.getLocationsList() : cluster.cluster.getLocationsList();
        checkZones(cluster.ref.location(), locations);
        NodeConfig.Builder config = in.getConfig().toBuilder();
        if (config.getMachineType().isEmpty()) {
            config.setMachineType("e2-medium");
        }
        if (config.getDiskSizeGb() == 0) {
            config.setDiskSizeGb(100);
        }
        if (config.getDiskType().isEmpty()) {
            config.setDiskType("pd-balanced");
        }
        if (config.getImageType().isEmpty()) {
            config.setImageType("COS_CONTAINERD");
        }
        return in.toBuilder()
                .setConfig(config)
                .setVersion(version)
                .setStatus(NodePool.Status.PROVISIONING)
                .clearLocations().addAllLocations(locations)
                .setSelfLink(API + cluster.ref.clusterPath() + "/nodePools/" + in.getName())
                .setManagement(in.hasManagement() ? in.getManagement() : NodeManagement.newBuilder().setAutoUpgrade(true).setAutoRepair(true).build())
                .setPodIpv4CidrSize(24);
    }

    private static void checkAutoscaling(NodePoolAutoscaling autoscaling) {
        if (autoscaling.getEnabled() && (autoscaling.getMinNodeCount() < 0 || autoscaling.getMaxNodeCount() < 1
                || autoscaling.getMinNodeCount() > autoscaling.getMaxNodeCount())) {
            throw Ref.invalid("Invalid autoscaling: min_node_count must be between 0 and max_node_count, and max_node_count at least 1.");
        }
    }

    @Override
    public void updateCluster(UpdateClusterRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null).requireCluster();
            return update(find(ref), request.getUpdate());
        });
    }

    @Override
    public void updateMaster(UpdateMasterRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null).requireCluster();
            return update(find(ref), ClusterUpdate.newBuilder().setDesiredMasterVersion(request.getMasterVersion()).build());
        });
    }

    /** The kind of change each field of a ClusterUpdate makes; fields of one kind count as one change. */
    private static String changeKind(FieldDescriptor field) {
        switch (field.getName()) {
            case "desired_node_pool_id":
                return null;
            case "desired_master_authorized_networks_config":
            case "desired_control_plane_endpoints_config":
                return "authorized networks";
            case "desired_default_enable_private_nodes":
            case "desired_private_cluster_config":
                return "private nodes";
            default:
                return field.getName();
        }
    }

    private Operation update(SimCluster cluster, ClusterUpdate update) {
        Set<String> kinds = new TreeSet<>();
        for (FieldDescriptor field : update.getAllFields().keySet()) {
            String kind = changeKind(field);
            if (kind != null) {
                kinds.add(kind);
            }
        }
        if (kinds.isEmpty()) {
            throw Ref.invalid("The update names no change: exactly one field of ClusterUpdate must be set.");
        }
        if (kinds.size() > 1) {
            throw Ref.invalid("Exactly one update can be applied to a cluster at a time; this one names " + kinds + ".");
        }
        requireIdle(cluster);
        String kind = kinds.iterator().next();
        String selfLink = cluster.cluster.getSelfLink();
        Cluster.Builder c = cluster.cluster;
        Channel channel = c.getReleaseChannel().getChannel();
        switch (kind) {
            case "desired_master_version": {
                String current = c.getCurrentMasterVersion();
                String target = update.getDesiredMasterVersion().equals("-")
                        ? versions.defaultVersion(channel) : versions.resolve(update.getDesiredMasterVersion(), channel);
                Versions.checkUpgrade(current, target);
                c.setStatus(Cluster.Status.RECONCILING);
                return start(cluster, Operation.Type.UPGRADE_MASTER, selfLink,
                        new Effect.ChangeCluster(ClusterUpdate.newBuilder().setDesiredMasterVersion(target).build()));
            }
            case "desired_release_channel": {
                Channel target = update.getDesiredReleaseChannel().getChannel();
                if (c.getAutopilot().getEnabled() && target == Channel.UNSPECIFIED) {
                    throw Ref.invalid("Autopilot clusters must be enrolled in a release channel.");
                }
                if (target != Channel.UNSPECIFIED && target != Channel.UNRECOGNIZED) {
                    List<String> valid = versions.valid(target);
                    if (valid.isEmpty() || Versions.compare(c.getCurrentMasterVersion(), valid.get(0)) > 0) {
                        throw Ref.invalid("Cluster cannot be moved to the " + target + " release channel: its version \""
                                + c.getCurrentMasterVersion() + "\" is newer than every version the channel offers.");
                    }
                }
                c.setStatus(Cluster.Status.RECONCILING);
                return start(cluster, Operation.Type.UPDATE_CLUSTER, selfLink, new Effect.ChangeCluster(
                        ClusterUpdate.newBuilder().setDesiredReleaseChannel(ReleaseChannel.newBuilder().setChannel(target)).build()));
            }
            case "authorized networks": {
                MasterAuthorizedNetworksConfig config = update.hasDesiredControlPlaneEndpointsConfig()
                        && update.getDesiredControlPlaneEndpointsConfig().getIpEndpointsConfig().hasAuthorizedNetworksConfig()
                        ? update.getDesiredControlPlaneEndpointsConfig().getIpEndpointsConfig().getAuthorizedNetworksConfig()
                        : update.getDesiredMasterAuthorizedNetworksConfig();
                checkCidrs(config);
                c.setStatus(Cluster.Status.RECONCILING);
                return start(cluster, Operation.Type.UPDATE_CLUSTER, selfLink,
                        new Effect.ChangeCluster(ClusterUpdate.newBuilder().setDesiredMasterAuthorizedNetworksConfig(config).build()));
            }
            case "private nodes": {
                boolean enable = update.hasDesiredDefaultEnablePrivateNodes() ? update.getDesiredDefaultEnablePrivateNodes()
                        : update.getDesiredPrivateClusterConfig().getEnablePrivateNodes();
                c.setStatus(Cluster.Status.RECONCILING);
                return start(cluster, Operation.Type.UPDATE_CLUSTER, selfLink,
                        new Effect.ChangeCluster(ClusterUpdate.newBuilder().setDesiredDefaultEnablePrivateNodes(enable).build()));
            }
            case "desired_identity_service_config": {
                if (c.getAutopilot().getEnabled() && update.getDesiredIdentityServiceConfig().getEnabled()) {
                    throw Ref.invalid("Identity Service for GKE is not supported on Autopilot clusters.");
                }
                if (update.getDesiredIdentityServiceConfig().getEnabled()) {
                    faults.checkIdentityService(cluster.ref.project());
                }
                c.setStatus(Cluster.Status.RECONCILING);
                return start(cluster, Operation.Type.UPDATE_CLUSTER, selfLink, new Effect.ChangeCluster(ClusterUpdate.newBuilder()
                        .setDesiredIdentityServiceConfig(update.getDesiredIdentityServiceConfig()).build()));
            }
            case "desired_node_pool_autoscaling": {
                NodePool.Builder pool = poolOf(cluster, update.getDesiredNodePoolId());
                return setAutoscaling(cluster, pool, update.getDesiredNodePoolAutoscaling());
            }
            case "desired_node_version": {
                NodePool.Builder pool = poolOf(cluster, update.getDesiredNodePoolId());
                return upgradeNodes(cluster, pool, update.getDesiredNodeVersion());
            }
            default:
                throw Status.UNIMPLEMENTED.withDescription("The GKE simulator does not implement the update \"" + kind + "\".").asRuntimeException();
        }
    }

    private NodePool.Builder poolOf(SimCluster cluster, String poolId) {
        if (poolId.isEmpty()) {
            if (cluster.pools.size() == 1) {
                return cluster.pools.values().iterator().next();
            }
            throw Ref.invalid("desired_node_pool_id must be set: the cluster has " + cluster.pools.size() + " node pools.");
        }
        NodePool.Builder pool = cluster.pools.get(poolId);
        if (pool == null) {
            throw Status.NOT_FOUND.withDescription("Not found: " + cluster.ref.clusterPath() + "/nodePools/" + poolId + ".").asRuntimeException();
        }
        return pool;
    }

    @Override
    public void deleteCluster(DeleteClusterRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null).requireCluster();
            SimCluster cluster = find(ref);
            if (cluster.cluster.getStatus() == Cluster.Status.STOPPING) {
                throw Status.FAILED_PRECONDITION.withDescription("Cluster \"" + ref.cluster() + "\" is already being deleted.").asRuntimeException();
            }
            Cluster.Status before = cluster.cluster.getStatus();
            cluster.cluster.setStatus(Cluster.Status.STOPPING);
            cluster.pools.values().forEach(p -> p.setStatus(NodePool.Status.STOPPING));
            return start(cluster, Operation.Type.DELETE_CLUSTER, cluster.cluster.getSelfLink(), new Effect.DeleteCluster(before));
        });
    }

    @Override
    public void setLabels(SetLabelsRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null).requireCluster();
            SimCluster cluster = find(ref);
            requireIdle(cluster);
            if (!request.getLabelFingerprint().equals(cluster.cluster.getLabelFingerprint())) {
                throw Status.FAILED_PRECONDITION.withDescription("Labels could not be set due to fingerprint mismatch: expected \""
                        + cluster.cluster.getLabelFingerprint() + "\", got \"" + request.getLabelFingerprint() + "\".").asRuntimeException();
            }
            cluster.cluster.clearResourceLabels().putAllResourceLabels(request.getResourceLabelsMap())
                    .setLabelFingerprint(fingerprint(request.getResourceLabelsMap()));
            return start(cluster, Operation.Type.SET_LABELS, cluster.cluster.getSelfLink(), new Effect.Nothing());
        });
    }

    // ---------------------------------------------------------------- operations and versions

    @Override
    public void getOperation(GetOperationRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), null, null, request.getOperationId());
            SimOperation operation = ref.operation() == null ? null : operations.get(ref.operation());
            if (operation == null || (ref.project() != null && !operation.project.equals(ref.project()))) {
                throw Status.NOT_FOUND.withDescription("Not found: operation \"" + ref.operation() + "\".").asRuntimeException();
            }
            return operation.op.build();
        });
    }

    @Override
    public void listOperations(ListOperationsRequest request, StreamObserver<ListOperationsResponse> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getParent(), request.getProjectId(), request.getZone(), null, null, null).requireLocation();
            ListOperationsResponse.Builder response = ListOperationsResponse.newBuilder();
            for (SimOperation operation : operations.values()) {
                if (operation.project.equals(ref.project())
                        && (ref.location().equals("-") || operation.op.getLocation().equals(ref.location()))) {
                    response.addOperations(operation.op.build());
                }
            }
            return response.build();
        });
    }

    @Override
    public void cancelOperation(CancelOperationRequest request, StreamObserver<Empty> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), null, null, request.getOperationId());
            SimOperation operation = ref.operation() == null ? null : operations.get(ref.operation());
            if (operation == null || (ref.project() != null && !operation.project.equals(ref.project()))) {
                throw Status.NOT_FOUND.withDescription("Not found: operation \"" + ref.operation() + "\".").asRuntimeException();
            }
            if (operation.running()) {
                finish(operation, "The operation was cancelled.");
                operation.op.setError(com.google.rpc.Status.newBuilder().setCode(Status.Code.CANCELLED.value()).setMessage("The operation was cancelled."));
            }
            return Empty.getDefaultInstance();
        });
    }

    @Override
    public void getServerConfig(GetServerConfigRequest request, StreamObserver<ServerConfig> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), null, null, null).requireLocation();
            checkLocation(ref.location());
            return versions.serverConfig();
        });
    }

    // ---------------------------------------------------------------- node pools

    @Override
    public void listNodePools(ListNodePoolsRequest request, StreamObserver<ListNodePoolsResponse> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getParent(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null).requireCluster();
            ListNodePoolsResponse.Builder response = ListNodePoolsResponse.newBuilder();
            find(ref).pools.values().forEach(p -> response.addNodePools(p.build()));
            return response.build();
        });
    }

    @Override
    public void getNodePool(GetNodePoolRequest request, StreamObserver<NodePool> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), request.getNodePoolId(), null)
                    .requireNodePool();
            return findPool(find(ref), ref).build();
        });
    }

    @Override
    public void createNodePool(CreateNodePoolRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getParent(), request.getProjectId(), request.getZone(), request.getClusterId(), null, null).requireCluster();
            SimCluster cluster = find(ref);
            if (cluster.cluster.getAutopilot().getEnabled()) {
                throw Ref.invalid("Node pools cannot be created on an Autopilot cluster: the provider manages its nodes.");
            }
            NodePool in = request.getNodePool();
            if (cluster.pools.containsKey(in.getName())) {
                throw Status.ALREADY_EXISTS.withDescription("Already exists: " + ref.clusterPath() + "/nodePools/" + in.getName() + ".")
                        .asRuntimeException();
            }
            requireIdle(cluster);
            NodePool.Builder pool = newPool(cluster, in, cluster.cluster.getCurrentMasterVersion());
            faults.checkQuota(ref.project(), "node pool \"" + in.getName() + "\"");
            cluster.pools.put(in.getName(), pool);
            return start(cluster, Operation.Type.CREATE_NODE_POOL, pool.getSelfLink(), new Effect.CreatePool(in.getName()));
        });
    }

    @Override
    public void deleteNodePool(DeleteNodePoolRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), request.getNodePoolId(), null)
                    .requireNodePool();
            SimCluster cluster = find(ref);
            NodePool.Builder pool = findPool(cluster, ref);
            requireIdle(cluster);
            NodePool.Status before = pool.getStatus();
            pool.setStatus(NodePool.Status.STOPPING);
            return start(cluster, Operation.Type.DELETE_NODE_POOL, pool.getSelfLink(), new Effect.DeletePool(ref.nodePool(), before));
        });
    }

    @Override
    public void setNodePoolSize(SetNodePoolSizeRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), request.getNodePoolId(), null)
                    .requireNodePool();
            SimCluster cluster = find(ref);
            NodePool.Builder pool = findPool(cluster, ref);
            if (request.getNodeCount() < 0) {
                throw Ref.invalid("node_count must not be negative.");
            }
            requireIdle(cluster);
            if (request.getNodeCount() > pool.getInitialNodeCount()) {
                faults.checkQuota(ref.project(), "resizing node pool \"" + ref.nodePool() + "\"");
            }
            int count = request.getNodeCount();
            pool.setStatus(NodePool.Status.RECONCILING);
            return start(cluster, Operation.Type.SET_NODE_POOL_SIZE, pool.getSelfLink(), new Effect.ResizePool(ref.nodePool(), count));
        });
    }

    @Override
    public void setNodePoolAutoscaling(SetNodePoolAutoscalingRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), request.getNodePoolId(), null)
                    .requireNodePool();
            SimCluster cluster = find(ref);
            return setAutoscaling(cluster, findPool(cluster, ref), request.getAutoscaling());
        });
    }

    private Operation setAutoscaling(SimCluster cluster, NodePool.Builder pool, NodePoolAutoscaling autoscaling) {
        checkAutoscaling(autoscaling);
        requireIdle(cluster);
        if (autoscaling.getEnabled() && autoscaling.getMaxNodeCount() > pool.getInitialNodeCount()) {
            faults.checkQuota(cluster.ref.project(), "autoscaling node pool \"" + pool.getName() + "\"");
        }
        pool.setStatus(NodePool.Status.RECONCILING);
        return start(cluster, Operation.Type.UPDATE_CLUSTER, pool.getSelfLink(), new Effect.AutoscalePool(pool.getName(), autoscaling));
    }

    @Override
    public void updateNodePool(UpdateNodePoolRequest request, StreamObserver<Operation> out) {
        respond(out, () -> {
            Ref ref = Ref.of(request.getName(), request.getProjectId(), request.getZone(), request.getClusterId(), request.getNodePoolId(), null)
                    .requireNodePool();
            SimCluster cluster = find(ref);
            NodePool.Builder pool = findPool(cluster, ref);
            if (request.getNodeVersion().isEmpty() && (request.hasLabels() || request.hasTaints())) {
                return relabel(cluster, pool, request);
            }
            if (request.getNodeVersion().isEmpty()) {
                throw Status.UNIMPLEMENTED.withDescription("The GKE simulator updates a node pool's version, labels and taints only.")
                        .asRuntimeException();
            }
            return upgradeNodes(cluster, pool, request.getNodeVersion());
        });
    }

    /** Labels and taints replaced in place on the pool's nodes, as GKE does: each list given replaces the pool's whole list. */
    private Operation relabel(SimCluster cluster, NodePool.Builder pool, UpdateNodePoolRequest request) {
        requireIdle(cluster);
        pool.setStatus(NodePool.Status.RECONCILING);
        return start(cluster, Operation.Type.UPDATE_CLUSTER, pool.getSelfLink(), new Effect.RelabelPool(pool.getName(),
                request.hasLabels() ? request.getLabels() : null, request.hasTaints() ? request.getTaints() : null));
    }

    private Operation upgradeNodes(SimCluster cluster, NodePool.Builder pool, String requested) {
        String master = cluster.cluster.getCurrentMasterVersion();
        String target = requested.equals("-") ? master : versions.resolve(requested, Channel.UNSPECIFIED);
        if (Versions.compare(target, master) > 0) {
            throw Ref.invalid("Node version \"" + target + "\" must not be newer than the master version \"" + master + "\".");
        }
        requireIdle(cluster);
        pool.setStatus(NodePool.Status.RECONCILING);
        return start(cluster, Operation.Type.UPGRADE_NODES, pool.getSelfLink(), new Effect.UpgradePool(pool.getName(), target));
    }

    // ---------------------------------------------------------------- faults and controls that act on state

    synchronized void operationDuration(Duration duration) {
        this.operationDuration = duration;
    }

    synchronized Duration operationDuration() {
        return operationDuration;
    }

    synchronized void refuseVersion(String version) {
        versions.refuse(version);
    }

    synchronized void clearRefusedVersions() {
        versions.clearRefused();
    }

    /** Removes a cluster at once, as if someone deleted it in the console. */
    synchronized boolean deleteBehindTheBack(String project, String location, String name) {
        settle();
        String path = new Ref(project, location, name, null, null).clusterPath();
        boolean removed = clusters.remove(path) != null;
        if (removed) {
            changed.cluster(path);
            ClusterEndpoints api = endpoints;
            if (api != null) {
                api.gone(project, location, name);
            }
        }
        save();
        return removed;
    }

    /**
     * Moves a cluster's control plane and node pools to {@code version} (null: the newest its
     * channel offers), as a release-channel auto-upgrade does, and records the upgrade operation.
     */
    synchronized String releaseChannelUpgrade(String project, String location, String name, String version) {
        settle();
        SimCluster cluster = find(new Ref(project, location, name, null, null));
        Channel channel = cluster.cluster.getReleaseChannel().getChannel();
        String target = version != null ? version : versions.valid(channel).isEmpty() ? null : versions.valid(channel).get(0);
        if (target == null) {
            throw Status.FAILED_PRECONDITION.withDescription("The cluster's channel offers no version.").asRuntimeException();
        }
        cluster.cluster.setCurrentMasterVersion(target);
        cluster.pools.values().forEach(p -> p.setVersion(target));
        Duration saved = operationDuration;
        operationDuration = Duration.ZERO;
        try {
            start(cluster, Operation.Type.UPGRADE_MASTER, cluster.cluster.getSelfLink(), new Effect.Nothing(), false);
            settle();
        } finally {
            operationDuration = saved;
        }
        save();
        return target;
    }

    synchronized List<String> clusterNames() {
        settle();
        save();
        return List.copyOf(clusters.keySet());
    }

    synchronized Map<String, Object> describeVersions() {
        return Map.of("refusedVersions", List.copyOf(versions.refused()));
    }
}
