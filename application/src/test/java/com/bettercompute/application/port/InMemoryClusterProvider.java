package com.bettercompute.application.port;

import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * An in-memory {@link ClusterProvider} that keeps the port's contract (see
 * {@code ClusterProviderContract}): operations take {@code operationDuration} on the injected
 * clock, one at a time per cluster, each with a name that {@link #operation} answers for; versions
 * come from a fixed server config. Also offers the faults the reconciler's tests need, and counts
 * the calls it serves by method. Thread-safe.
 */
public final class InMemoryClusterProvider implements ClusterProvider {

    /** The versions the fake offers, newest first, shaped like GKE's. */
    public static final ServerConfig DEFAULT_SERVER_CONFIG = new ServerConfig(
            "1.33.5-gke.1080000",
            List.of("1.34.1-gke.1829001", "1.33.5-gke.1162000", "1.33.5-gke.1080000", "1.33.4-gke.1245000", "1.32.9-gke.1108000", "1.31.13-gke.1023000"),
            Map.of(
                    ReleaseChannel.RAPID, new ServerConfig.ChannelVersions("1.34.1-gke.1829001", List.of("1.34.1-gke.1829001", "1.33.5-gke.1162000")),
                    ReleaseChannel.REGULAR, new ServerConfig.ChannelVersions("1.33.5-gke.1080000",
                            List.of("1.33.5-gke.1162000", "1.33.5-gke.1080000", "1.33.4-gke.1245000", "1.32.9-gke.1108000")),
                    ReleaseChannel.STABLE, new ServerConfig.ChannelVersions("1.32.9-gke.1108000",
                            List.of("1.33.4-gke.1245000", "1.32.9-gke.1108000", "1.31.13-gke.1023000")),
                    ReleaseChannel.EXTENDED, new ServerConfig.ChannelVersions("1.31.13-gke.1023000",
                            List.of("1.33.4-gke.1245000", "1.32.9-gke.1108000", "1.31.13-gke.1023000"))));

    private static final String CA = java.util.Base64.getEncoder().encodeToString(
            "-----BEGIN CERTIFICATE-----\nZmFrZQ==\n-----END CERTIFICATE-----\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    private final Clock clock;
    private final Duration operationDuration;
    private final ServerConfig serverConfig;
    private final Map<String, FakeCluster> clusters = new LinkedHashMap<>();
    private final Deque<String> failingOperations = new ArrayDeque<>();
    private final Deque<ProviderException> failingCalls = new ArrayDeque<>();
    private final Map<String, Integer> calls = new LinkedHashMap<>();
    private final Map<String, FakeOperation> operations = new LinkedHashMap<>();
    private int sequence;
    private boolean identityServiceOffered = true;

    public InMemoryClusterProvider(Clock clock, Duration operationDuration, ServerConfig serverConfig) {
        this.clock = clock;
        this.operationDuration = operationDuration;
        this.serverConfig = serverConfig;
    }

    public InMemoryClusterProvider(Clock clock, Duration operationDuration) {
        this(clock, operationDuration, DEFAULT_SERVER_CONFIG);
    }

    private static final class FakePool {
        NodePoolSpec spec;
        NodePoolStatus status = NodePoolStatus.PROVISIONING;
        String version;
        int nodeCount;
        Autoscaling autoscaling;
        java.util.Map<String, String> labels;
        List<Taint> taints;
        String message;
    }

    /** An operation: running until {@code doneAt}, then done, with {@code error} if it failed. */
    private static final class FakeOperation {
        final String clusterKey;
        final Instant doneAt;
        final Runnable onDone;
        final Consumer<String> onFail;
        final String failure;
        boolean done;

        FakeOperation(String clusterKey, Instant doneAt, Runnable onDone, Consumer<String> onFail, String failure) {
            this.clusterKey = clusterKey;
            this.doneAt = doneAt;
            this.onDone = onDone;
            this.onFail = onFail;
            this.failure = failure;
        }
    }

    private static final class FakeCluster {
        final ClusterLocator at;
        String clusterId;
        ClusterMode mode;
        ReleaseChannel channel;
        ClusterStatus status = ClusterStatus.PROVISIONING;
        String statusMessage;
        String masterVersion;
        List<String> authorized = List.of();
        boolean privateNodes;
        boolean identityService;
        final Map<String, FakePool> pools = new LinkedHashMap<>();
        FakeOperation running;

        FakeCluster(ClusterLocator at) {
            this.at = at;
        }
    }

    // ---------------------------------------------------------------- faults

    /** The next operation started fails with this message. */
    public synchronized void failNextOperation(String message) {
        failingOperations.add(message);
    }

    /** The next call of any method throws this. */
    public synchronized void failNextCall(ProviderException failure) {
        failingCalls.add(failure);
    }

    /** The reason GKE gives where it does not offer Identity Service for GKE (as the GKE simulator's fault says it). */
    public static final String IDENTITY_SERVICE_NOT_OFFERED = "Identity Service for GKE is not available to the organization of this project.";

    /**
     * From now on Identity Service for GKE is refused for Standard clusters too, at create and by update, as GKE does in an
     * organization it does not offer it to.
     */
    public synchronized void refuseIdentityService() {
        identityServiceOffered = false;
    }

    /** Puts a cluster that is not ours (no label) under this name, running. */
    public synchronized void putForeignCluster(ClusterLocator at) {
        FakeCluster cluster = new FakeCluster(at);
        cluster.mode = ClusterMode.STANDARD;
        cluster.channel = ReleaseChannel.REGULAR;
        cluster.status = ClusterStatus.RUNNING;
        cluster.masterVersion = serverConfig.defaultVersion();
        clusters.put(at.toString(), cluster);
    }

    /** Deletes a cluster at once, as someone would in the console. */
    public synchronized void deleteBehindTheBack(ClusterLocator at) {
        clusters.remove(at.toString());
    }

    /** Moves a cluster and its pools to a version, as a release-channel upgrade would. */
    public synchronized void releaseChannelUpgrade(ClusterLocator at, String version) {
        FakeCluster cluster = clusters.get(at.toString());
        cluster.masterVersion = version;
        cluster.pools.values().forEach(p -> p.version = version);
    }

    /** How many calls the port has served. */
    public synchronized int calls() {
        return calls.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** How many calls of each method the port has served, by method name. */
    public synchronized Map<String, Integer> callsByMethod() {
        return Map.copyOf(calls);
    }

    /** Forgets every operation, as GKE does with old ones. */
    public synchronized void forgetOperations() {
        operations.values().removeIf(o -> o.done);
    }

    // ---------------------------------------------------------------- plumbing

    private void enter(String method) {
        calls.merge(method, 1, Integer::sum);
        ProviderException failure = failingCalls.poll();
        if (failure != null) {
            throw failure;
        }
        settle();
    }

    private void settle() {
        Instant now = clock.instant();
        for (FakeCluster cluster : List.copyOf(clusters.values())) {
            FakeOperation op = cluster.running;
            if (op != null && !op.doneAt.isAfter(now)) {
                cluster.running = null;
                op.done = true;
                if (op.failure == null) {
                    op.onDone.run();
                } else {
                    op.onFail.accept(op.failure);
                }
            }
        }
    }

    private String start(FakeCluster cluster, Runnable onDone, Consumer<String> onFail) {
        String name = "operation-" + (++sequence);
        FakeOperation op = new FakeOperation(cluster.at.toString(), clock.instant().plus(operationDuration), onDone, onFail,
                failingOperations.poll());
        cluster.running = op;
        operations.put(name, op);
        if (operationDuration.isZero()) {
            settle();
        }
        return name;
    }

    private FakeCluster find(ClusterLocator at) {
        FakeCluster cluster = clusters.get(at.toString());
        if (cluster == null) {
            throw new ProviderException(Kind.NOT_FOUND, "Not found: " + at + ".");
        }
        return cluster;
    }

    private static void requireIdle(FakeCluster cluster) {
        if (cluster.running != null) {
            throw new ProviderException(Kind.FAILED_PRECONDITION, "Cluster is running incompatible operation.");
        }
        if (cluster.status != ClusterStatus.RUNNING) {
            throw new ProviderException(Kind.FAILED_PRECONDITION, "Cluster is not ready: its status is " + cluster.status + ".");
        }
    }

    private List<String> valid(ReleaseChannel channel) {
        ServerConfig.ChannelVersions versions = channel == null ? null : serverConfig.channels().get(channel);
        return versions == null ? serverConfig.validVersions() : versions.validVersions();
    }

    private String resolve(String requested, ReleaseChannel channel) {
        List<String> valid = valid(channel);
        if (requested == null || requested.equals("-")) {
            ServerConfig.ChannelVersions versions = channel == null ? null : serverConfig.channels().get(channel);
            return versions == null ? serverConfig.defaultVersion() : versions.defaultVersion();
        }
        for (String candidate : valid) {
            if (requested.equals("latest") || candidate.equals(requested) || candidate.startsWith(requested + ".")
                    || candidate.startsWith(requested + "-")) {
                return candidate;
            }
        }
        throw new ProviderException(Kind.INVALID, "Master version \"" + requested + "\" is unsupported.");
    }

    static int compareVersions(String a, String b) {
        String[] x = a.split("[.-]");
        String[] y = b.split("[.-]");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            if (x[i].equals(y[i])) {
                continue;
            }
            try {
                return Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]));
            } catch (NumberFormatException e) {
                return x[i].compareTo(y[i]);
            }
        }
        return Integer.compare(x.length, y.length);
    }

    // ---------------------------------------------------------------- the port

    @Override
    public synchronized ClusterObservation observe(ClusterLocator at) {
        enter("observe");
        FakeCluster c = clusters.get(at.toString());
        if (c == null) {
            return ClusterObservation.absent();
        }
        List<NodePoolObservation> pools = new ArrayList<>();
        String nodeVersion = c.masterVersion;
        for (FakePool p : c.pools.values()) {
            NodePoolSpec s = p.spec;
            pools.add(new NodePoolObservation(s.name(), p.status, p.version, p.nodeCount, p.autoscaling, s.machineType(),
                    s.diskGiB(), s.diskType(), s.spot(), s.accelerators(),
                    s.zones().isEmpty() ? List.of(at.location()) : s.zones(), p.labels == null ? s.labels() : p.labels,
                    p.taints == null ? s.taints() : p.taints, p.message));
            if (compareVersions(p.version, nodeVersion) < 0) {
                nodeVersion = p.version;
            }
        }
        return new ClusterObservation(true, c.clusterId, c.status, c.statusMessage, c.mode, "34.118.0." + (clusters.size() + 1), CA,
                c.masterVersion, nodeVersion, c.channel, c.authorized, c.privateNodes, pools, c.identityService);
    }

    @Override
    public synchronized OperationStatus operation(ClusterLocator at, String name) {
        enter(name == null ? "listOperations" : "operation");
        FakeOperation op = null;
        if (name == null) {
            for (FakeOperation candidate : operations.values()) {
                if (candidate.clusterKey.equals(at.toString())) {
                    op = candidate;
                }
            }
        } else {
            op = operations.get(name);
        }
        if (op == null) {
            return OperationStatus.SUCCEEDED;
        }
        return !op.done ? OperationStatus.RUNNING : op.failure == null ? OperationStatus.SUCCEEDED : OperationStatus.failed(op.failure);
    }

    @Override
    public synchronized String createCluster(ClusterSpec spec) {
        enter("createCluster");
        FakeCluster existing = clusters.get(spec.at().toString());
        if (existing != null) {
            if (!spec.clusterId().equals(existing.clusterId)) {
                throw new ProviderException(Kind.FOREIGN, "A cluster named " + spec.at() + " exists but is not ours.");
            }
            return null;
        }
        ReleaseChannel channel = spec.mode() == ClusterMode.AUTOPILOT && spec.releaseChannel() == null ? ReleaseChannel.REGULAR : spec.releaseChannel();
        String version = resolve(spec.version(), channel);
        if (spec.mode() == ClusterMode.AUTOPILOT && spec.at().location().matches(".*-[a-z]$")) {
            throw new ProviderException(Kind.INVALID, "Autopilot clusters must be regional clusters.");
        }
        if (spec.identityService() && spec.mode() == ClusterMode.AUTOPILOT) {
            throw new ProviderException(Kind.IDENTITY_SERVICE_REFUSED, "Identity Service for GKE is not supported on Autopilot clusters.");
        }
        if (spec.identityService() && !identityServiceOffered) {
            throw new ProviderException(Kind.IDENTITY_SERVICE_REFUSED, IDENTITY_SERVICE_NOT_OFFERED);
        }
        FakeCluster c = new FakeCluster(spec.at());
        c.clusterId = spec.clusterId();
        c.mode = spec.mode();
        c.channel = channel;
        c.masterVersion = version;
        c.authorized = spec.authorizedNetworks();
        c.privateNodes = spec.privateNodes();
        c.identityService = spec.identityService();
        if (spec.mode() == ClusterMode.STANDARD) {
            FakePool initial = new FakePool();
            initial.spec = new NodePoolSpec(INITIAL_NODE_POOL, "e2-small", 1, null, 30, "pd-standard", false, null, List.of(), Map.of(), List.of());
            initial.version = version;
            initial.nodeCount = 1;
            c.pools.put(INITIAL_NODE_POOL, initial);
        }
        clusters.put(spec.at().toString(), c);
        return start(c, () -> {
            c.status = ClusterStatus.RUNNING;
            c.pools.values().forEach(p -> p.status = NodePoolStatus.RUNNING);
        }, message -> {
            c.status = ClusterStatus.ERROR;
            c.statusMessage = message;
            c.pools.values().forEach(p -> {
                p.status = NodePoolStatus.ERROR;
                p.message = message;
            });
        });
    }

    @Override
    public synchronized String updateCluster(ClusterLocator at, ClusterChange change) {
        enter("updateCluster");
        FakeCluster c = find(at);
        requireIdle(c);
        Runnable apply;
        if (change instanceof ClusterChange.MasterVersion v) {
            String target = resolve(v.version(), c.channel);
            if (compareVersions(target, c.masterVersion) < 0) {
                throw new ProviderException(Kind.INVALID, "Master cannot be downgraded from \"" + c.masterVersion + "\" to \"" + target + "\".");
            }
            apply = () -> c.masterVersion = target;
        } else if (change instanceof ClusterChange.Channel ch) {
            apply = () -> c.channel = ch.channel();
        } else if (change instanceof ClusterChange.AuthorizedNetworks n) {
            apply = () -> c.authorized = n.cidrs();
        } else if (change instanceof ClusterChange.IdentityService id) {
            if (c.mode == ClusterMode.AUTOPILOT && id.enabled()) {
                throw new ProviderException(Kind.INVALID, "Identity Service for GKE is not supported on Autopilot clusters.");
            }
            if (id.enabled() && !identityServiceOffered) {
                throw new ProviderException(Kind.FAILED_PRECONDITION, IDENTITY_SERVICE_NOT_OFFERED);
            }
            apply = () -> c.identityService = id.enabled();
        } else {
            throw new IllegalArgumentException(String.valueOf(change));
        }
        c.status = ClusterStatus.RECONCILING;
        return start(c, () -> {
            apply.run();
            c.status = ClusterStatus.RUNNING;
        }, message -> c.status = ClusterStatus.RUNNING);
    }

    @Override
    public synchronized String deleteCluster(ClusterLocator at) {
        enter("deleteCluster");
        FakeCluster c = clusters.get(at.toString());
        if (c == null || c.status == ClusterStatus.STOPPING) {
            return null;
        }
        if (c.clusterId == null) {
            throw new ProviderException(Kind.FOREIGN, "A cluster named " + at + " exists but is not ours.");
        }
        ClusterStatus before = c.status;
        c.status = ClusterStatus.STOPPING;
        c.pools.values().forEach(p -> p.status = NodePoolStatus.STOPPING);
        return start(c, () -> clusters.remove(at.toString(), c), message -> c.status = before == ClusterStatus.ERROR ? before : ClusterStatus.RUNNING);
    }

    @Override
    public synchronized String createNodePool(ClusterLocator at, NodePoolSpec spec) {
        enter("createNodePool");
        FakeCluster c = find(at);
        if (c.pools.containsKey(spec.name())) {
            return null;
        }
        if (c.mode == ClusterMode.AUTOPILOT) {
            throw new ProviderException(Kind.INVALID, "Node pools cannot be created on an Autopilot cluster.");
        }
        requireIdle(c);
        FakePool p = new FakePool();
        p.spec = spec;
        p.version = c.masterVersion;
        p.nodeCount = spec.nodeCount();
        p.autoscaling = spec.autoscaling();
        c.pools.put(spec.name(), p);
        return start(c, () -> p.status = NodePoolStatus.RUNNING, message -> {
            p.status = NodePoolStatus.ERROR;
            p.message = message;
        });
    }

    private FakePool pool(FakeCluster c, String name) {
        FakePool p = c.pools.get(name);
        if (p == null) {
            throw new ProviderException(Kind.NOT_FOUND, "Not found: " + c.at + "/nodePools/" + name + ".");
        }
        return p;
    }

    @Override
    public synchronized String resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
        enter("resizeNodePool");
        FakeCluster c = find(at);
        FakePool p = pool(c, pool);
        requireIdle(c);
        p.status = NodePoolStatus.RECONCILING;
        return start(c, () -> {
            p.nodeCount = nodeCount;
            p.status = NodePoolStatus.RUNNING;
        }, message -> p.status = NodePoolStatus.RUNNING);
    }

    @Override
    public synchronized String setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
        enter("setNodePoolAutoscaling");
        FakeCluster c = find(at);
        FakePool p = pool(c, pool);
        requireIdle(c);
        p.status = NodePoolStatus.RECONCILING;
        return start(c, () -> {
            p.autoscaling = autoscaling;
            p.status = NodePoolStatus.RUNNING;
        }, message -> p.status = NodePoolStatus.RUNNING);
    }

    @Override
    public synchronized String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, java.util.Map<String, String> labels,
                                                           List<Taint> taints) {
        enter("updateNodePoolLabelsAndTaints");
        FakeCluster c = find(at);
        FakePool p = pool(c, pool);
        requireIdle(c);
        p.status = NodePoolStatus.RECONCILING;
        java.util.Map<String, String> newLabels = java.util.Map.copyOf(labels);
        List<Taint> newTaints = List.copyOf(taints);
        return start(c, () -> {
            p.labels = newLabels;
            p.taints = newTaints;
            p.status = NodePoolStatus.RUNNING;
        }, message -> p.status = NodePoolStatus.RUNNING);
    }

    @Override
    public synchronized String deleteNodePool(ClusterLocator at, String pool) {
        enter("deleteNodePool");
        FakeCluster c = clusters.get(at.toString());
        if (c == null || !c.pools.containsKey(pool) || c.pools.get(pool).status == NodePoolStatus.STOPPING) {
            return null;
        }
        requireIdle(c);
        FakePool p = c.pools.get(pool);
        NodePoolStatus before = p.status;
        p.status = NodePoolStatus.STOPPING;
        return start(c, () -> c.pools.remove(pool, p), message -> p.status = before);
    }

    @Override
    public synchronized ServerConfig serverConfig(String project, String location) {
        enter("serverConfig");
        return serverConfig;
    }

    /** The platform's credential for the clusters' Kubernetes APIs, as a fixed fake value. */
    public static final String PLATFORM_TOKEN = "fake-platform-token";

    @Override
    public String platformAccessToken() {
        return PLATFORM_TOKEN;
    }
}
