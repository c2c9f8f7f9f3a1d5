package com.bettercompute.adapters.gke.simulator;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A GKE v1 API server on loopback: plaintext gRPC and REST over one stateful core, with faults on
 * demand. Start it with {@link #start}, point clients at {@link #grpcTarget()} or {@link #restUrl()},
 * {@link #close()} it when done.
 *
 * <p>Method names for {@link #failNextCalls} are the RPC names of {@code google.container.v1.ClusterManager}
 * ({@code CreateCluster}, {@code GetOperation}…), or {@code *} for any.
 */
public final class GkeSimulator implements AutoCloseable {
    private final SimulatorCore core;
    private final Faults faults;
    /** gRPC calls received, by method name, faulted ones included. */
    private final Map<String, LongAdder> grpcCalls = new ConcurrentHashMap<>();
    private final Server grpc;
    private final RestFrontEnd rest;
    /** The Compute Engine resources (addresses, forwarding rules, target pools, health checks) and their listeners. */
    private final ComputeEngine compute;
    private final ForwardingListeners listeners = new ForwardingListeners();

    private GkeSimulator(Clock clock, Duration operationDuration, int grpcPort, int restPort, Pause pause, Path stateDirectory)
            throws IOException {
        this.faults = new Faults(Objects.requireNonNull(pause, "pause"));
        this.core = new SimulatorCore(Objects.requireNonNull(clock, "clock"), operationDuration, faults, stateDirectory);
        try {
            this.compute = new ComputeEngine(stateDirectory, listeners);
        } catch (IOException | RuntimeException e) {
            core.close();
            throw e;
        }
        try {
            this.grpc = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), grpcPort))
                    .addService(ServerInterceptors.intercept(core, new FaultInterceptor(faults, grpcCalls)))
                    .build()
                    .start();
        } catch (IOException | RuntimeException e) {
            core.close();
            throw e;
        }
        try {
            this.rest = new RestFrontEnd(core, faults, this, new ComputeRest(compute, faults), restPort);
        } catch (IOException | RuntimeException e) {
            grpc.shutdownNow();
            compute.close();
            core.close();
            throw e;
        }
    }

    /**
     * Starts the simulator keeping its state in {@code stateDirectory} (null: in memory only): clusters, node
     * pools and operations saved there are served again, operations that were running complete on
     * {@code clock}, and every change is on disk before it is answered. Faults and the operation duration
     * set through the controls are not kept. One simulator per directory at a time.
     */
    public static GkeSimulator start(Clock clock, Duration operationDuration, int grpcPort, int restPort, Pause pause, Path stateDirectory) {
        try {
            return new GkeSimulator(clock, operationDuration, grpcPort, restPort, pause, stateDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("the GKE simulator could not start: " + e.getMessage(), e);
        }
    }

    /**
     * Starts the simulator. Ports 0 pick free ones. Operations complete once {@code operationDuration}
     * has passed on {@code clock}; the latency fault waits with {@code pause}.
     */
    public static GkeSimulator start(Clock clock, Duration operationDuration, int grpcPort, int restPort, Pause pause) {
        return start(clock, operationDuration, grpcPort, restPort, pause, null);
    }

    /** Starts the simulator without a way to wait: the latency fault is ignored. */
    public static GkeSimulator start(Clock clock, Duration operationDuration, int grpcPort, int restPort) {
        return start(clock, operationDuration, grpcPort, restPort, Pause.NONE);
    }

    public int grpcPort() {
        return grpc.getPort();
    }

    public int restPort() {
        return rest.port();
    }

    /** {@code 127.0.0.1:<grpc port>}, what {@code --gke-endpoint} takes. */
    public String grpcTarget() {
        return "127.0.0.1:" + grpcPort();
    }

    /** {@code http://127.0.0.1:<rest port>}. */
    public String restUrl() {
        return "http://127.0.0.1:" + restPort();
    }

    /**
     * The gRPC calls received so far, by method name ({@code GetCluster}, {@code CreateNodePool}…), faulted ones
     * included: what a load run counts on the wire.
     */
    public Map<String, Long> grpcCalls() {
        Map<String, Long> counts = new TreeMap<>();
        grpcCalls.forEach((method, count) -> counts.put(method, count.sum()));
        return counts;
    }

    /** The line the standalone command prints. */
    public String banner() {
        return "gke simulator: grpc " + grpcTarget() + " rest " + restUrl();
    }

    @Override
    public void close() {
        rest.close();
        grpc.shutdownNow();
        try {
            grpc.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        compute.close();
        core.close();
    }

    // ---------------------------------------------------------------- Compute Engine

    /**
     * The Compute Engine API's endpoint for clients: {@code http://127.0.0.1:<rest port>} (the Java client adds
     * {@code /compute/v1}; gcloud's {@code CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE} takes it with a trailing slash).
     */
    public String computeUrl() {
        return restUrl();
    }

    /** Addresses reserved from now on come from this IPv4 range ({@code 127.0.10.0/24} unless set). */
    public void addressPool(String cidr) {
        compute.addressPool(cidr);
    }

    /** Who answers the health checks of the target pools' instances (every instance is healthy until set). */
    public void backendHealth(BackendHealth health) {
        listeners.health(health);
    }

    // ---------------------------------------------------------------- the clusters' Kubernetes APIs

    /** From now on, running clusters report this endpoint and CA (see {@link ClusterEndpoints}). */
    public void clusterEndpoints(ClusterEndpoints endpoints) {
        core.clusterEndpoints(endpoints);
    }

    /**
     * A running cluster's node pools and their node counts over all zones (pools being created left out),
     * or null when no such cluster runs: what its simulated Kubernetes API shows as Nodes.
     */
    public Map<String, Integer> nodeCounts(String project, String location, String cluster) {
        return core.nodeCounts(project, location, cluster);
    }

    /**
     * A running cluster's node pools as the API reports them (pools being created left out), each with its
     * node count over all zones, or null when no such cluster runs: what its simulated Kubernetes API
     * makes Nodes from — the pool's node config labels, taints and accelerators included.
     */
    public Map<String, PoolNodes> nodePools(String project, String location, String cluster) {
        Map<String, com.google.container.v1.NodePool> pools = core.nodePools(project, location, cluster);
        if (pools == null) {
            return null;
        }
        Map<String, PoolNodes> out = new java.util.LinkedHashMap<>();
        pools.forEach((name, pool) -> out.put(name, new PoolNodes(SimulatorCore.nodeCount(pool), pool)));
        return out;
    }

    /**
     * A running cluster's control plane version ({@code 1.33.5-gke.1080000}; it moves with an upgrade), or null when
     * no such cluster runs: what its simulated Kubernetes API reports at {@code /version}.
     */
    public String masterVersion(String project, String location, String cluster) {
        return core.masterVersion(project, location, cluster);
    }

    /**
     * Whether a running cluster has Identity Service for GKE enabled ({@code identityServiceConfig.enabled}): then its
     * Kubernetes API serves the {@code ClientConfig} kind and trusts the ID tokens one names. False when no such cluster runs.
     */
    public boolean identityService(String project, String location, String cluster) {
        return core.identityService(project, location, cluster);
    }

    /** A node pool with how many nodes it has over all its zones. */
    public record PoolNodes(int nodes, com.google.container.v1.NodePool pool) {}

    // ---------------------------------------------------------------- faults and controls

    /** The next {@code count} calls of {@code method} ({@code *}: any) fail with this gRPC status code name and message. */
    public void failNextCalls(String method, int count, String statusCode, String message) {
        Status status = Status.fromCode(Status.Code.valueOf(statusCode)).withDescription(message);
        faults.failCalls(method, count, status);
    }

    /** The next {@code count} operations started end DONE with this error message (and their resource in error or unchanged). */
    public void failNextOperations(int count, String message) {
        faults.failOperations(count, message);
    }

    /** Stops offering a version: creates, upgrades and server config no longer know it. */
    public void refuseVersion(String version) {
        core.refuseVersion(version);
    }

    /** Calls that would add nodes in the project ({@code *}: any) fail with RESOURCE_EXHAUSTED. */
    public void exhaustQuota(String project) {
        faults.exhaustQuota(project);
    }

    public void restoreQuota(String project) {
        faults.restoreQuota(project);
    }

    /**
     * Creates and updates that turn Identity Service for GKE on for a Standard cluster of the project ({@code *}: any)
     * fail with FAILED_PRECONDITION naming it, as in an organization GKE does not offer it to.
     */
    public void refuseIdentityService(String project) {
        faults.refuseIdentityService(project);
    }

    /** Every call waits this long before it is served (needs a {@link Pause}). */
    public void addLatency(Duration latency) {
        faults.latency(latency);
    }

    /** Deletes a cluster at once, as someone would in the console. False if there was none. */
    public boolean deleteClusterBehindTheBack(String project, String location, String name) {
        return core.deleteBehindTheBack(project, location, name);
    }

    /**
     * Moves a cluster's control plane and node pools to {@code version} (null: the newest version
     * its channel offers) as a release-channel auto-upgrade would. Returns the version.
     */
    public String releaseChannelUpgrade(String project, String location, String name, String version) {
        return core.releaseChannelUpgrade(project, location, name, version);
    }

    /** Clears every fault (refused versions included). */
    public void clearFaults() {
        faults.clear();
        core.clearRefusedVersions();
    }

    /** Changes how long operations started from now take. */
    public void operationDuration(Duration duration) {
        core.operationDuration(duration);
    }

    /** The resource names of the clusters that exist. */
    public List<String> clusters() {
        return core.clusterNames();
    }

    Map<String, Object> describeFaults() {
        Map<String, Object> out = new LinkedHashMap<>(faults.describe());
        out.putAll(core.describeVersions());
        out.put("operationDurationMillis", core.operationDuration().toMillis());
        return out;
    }

    /** Applies the call faults to gRPC calls, before the core sees them. */
    private static final class FaultInterceptor implements ServerInterceptor {
        private final Faults faults;
        private final Map<String, LongAdder> calls;

        FaultInterceptor(Faults faults, Map<String, LongAdder> calls) {
            this.faults = faults;
            this.calls = calls;
        }

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            String method = call.getMethodDescriptor().getBareMethodName();
            calls.computeIfAbsent(method, m -> new LongAdder()).increment();
            try {
                faults.beforeCall(method);
            } catch (StatusRuntimeException e) {
                call.close(e.getStatus(), new Metadata());
                return new ServerCall.Listener<>() { };
            }
            return next.startCall(call, headers);
        }
    }
}
