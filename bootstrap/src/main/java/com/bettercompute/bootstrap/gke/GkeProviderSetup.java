package com.bettercompute.bootstrap.gke;

import com.bettercompute.adapters.gke.ComputeLoadBalancerProvider;
import com.bettercompute.adapters.gke.FilestoreSharedVolumeProvider;
import com.bettercompute.adapters.gke.GkeClusterProvider;
import com.bettercompute.adapters.gke.GkeClusterProviders;
import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.ClusterEndpoints;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.container.v1.AcceleratorConfig;
import com.google.container.v1.NodeConfig;
import com.google.container.v1.NodeTaint;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link ClusterProvider} the server runs with, from its options: {@code --gke-endpoint HOST:PORT}
 * wins (any GKE API, e.g. a standalone simulator; nothing is started), else {@code --provider gke}
 * (real GKE, application-default credentials) or {@code --provider simulator} (the default: a GKE
 * simulator in-process on free loopback ports, reached over gRPC like real GKE). What the simulator cannot do
 * as GKE does is set here, as the provider's configuration (docs/decisions/simulators.md).
 */
public final class GkeProviderSetup implements AutoCloseable {
    /** The hosts of {@code --gke-endpoint} that are this machine (and {@code 127.*}). */
    private static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");
    private final GkeClusterProvider provider;
    private final GkeSimulator simulator;
    /** The embedded simulator's clusters' Kubernetes APIs; null without an embedded simulator. */
    private final SimulatedKubernetesApis kubernetesApis;
    /** Real GKE: accounts with their own credentials file get their own client. */
    private final boolean perAccountCredentials;
    private final Map<Path, GkeClusterProvider> byCredentials = new ConcurrentHashMap<>();
    /** Compute Engine clients by credentials file ("" for the default credentials or the simulator). */
    private final Map<String, ComputeLoadBalancerProvider> compute = new ConcurrentHashMap<>();
    /** Runs the simulated clusters' controllers every second; null without an embedded simulator. */
    private final ScheduledExecutorService controllers;

    private GkeProviderSetup(GkeClusterProvider provider, GkeSimulator simulator, boolean perAccountCredentials) {
        this(provider, simulator, null, perAccountCredentials);
    }

    private GkeProviderSetup(GkeClusterProvider provider, GkeSimulator simulator, SimulatedKubernetesApis kubernetesApis,
                             boolean perAccountCredentials) {
        this.provider = provider;
        this.simulator = simulator;
        this.kubernetesApis = kubernetesApis;
        this.perAccountCredentials = perAccountCredentials;
        this.controllers = kubernetesApis == null ? null : Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "simulated-cluster-controllers");
            t.setDaemon(true);
            return t;
        });
        if (controllers != null) {
            // What only time moves in the simulated clusters (nodes turning Ready, pods finishing, graceful deletions, back-offs).
            controllers.scheduleWithFixedDelay(kubernetesApis::step, 1, 1, TimeUnit.SECONDS);
        }
    }

    /** As {@link #from(String, String, Duration, Clock, Path)} with the embedded simulator's state in memory. */
    public static GkeProviderSetup from(String provider, String gkeEndpoint, Duration simOperation, Clock clock) {
        return from(provider, gkeEndpoint, simOperation, clock, null);
    }

    /**
     * @param provider          {@code simulator} or {@code gke}
     * @param gkeEndpoint       null, or {@code HOST:PORT}
     * @param simOperation      how long the embedded simulator's operations take
     * @param clock             the embedded simulator's clock
     * @param simulatorState    where the embedded simulator keeps its world (its clusters' Kubernetes APIs under
     *                          {@code kubernetes/}), so a restarted server finds the provider as it left it; null:
     *                          in memory
     */
    public static GkeProviderSetup from(String provider, String gkeEndpoint, Duration simOperation, Clock clock, Path simulatorState) {
        if (gkeEndpoint != null && !gkeEndpoint.isBlank()) {
            if (!gkeEndpoint.matches("[^\\s/]+:\\d{1,5}")) {
                throw new IllegalArgumentException("--gke-endpoint takes HOST:PORT, not \"" + gkeEndpoint + "\"");
            }
            return new GkeProviderSetup(GkeClusterProviders.grpc(new Endpoint(gkeEndpoint, transportTo(gkeEndpoint), null)), null, false);
        }
        switch (provider == null ? "simulator" : provider) {
            case "gke":
                return new GkeProviderSetup(GkeClusterProviders.google(), null, true);
            case "simulator": {
                GkeSimulator simulator;
                try {
                    simulator = GkeSimulator.start(clock, simOperation, 0, 0, GkeSimulatorCommand.SLEEP, simulatorState);
                } catch (UncheckedIOException e) {
                    // Most often a second server on the same --data-dir: say what to do rather than fail with a trace.
                    throw new IllegalArgumentException(e.getMessage() + "; give each server its own --data-dir, or share one "
                            + "standalone simulator with --gke-endpoint", e);
                }
                SimulatedKubernetesApis apis = null;
                try {
                    apis = withKubernetesApis(simulator, clock, simulatorState == null ? null : simulatorState.resolve("kubernetes"),
                            new SimulatedKubernetesApis.Settings(simOperation.dividedBy(4), null));
                    // gRPC on loopback in plaintext; the platform's identity in the simulated clusters is the token their
                    // API server gave it, as Google credentials (never sent in the clear: plaintext calls carry none)
                    Endpoint endpoint = new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT,
                            GoogleCredentials.create(new AccessToken(apis.adminToken(), null)));
                    return new GkeProviderSetup(GkeClusterProviders.grpc(endpoint), simulator, apis, false);
                } catch (RuntimeException e) {
                    if (apis != null) {
                        apis.close();
                    }
                    simulator.close();
                    throw e;
                }
            }
            default:
                throw new IllegalArgumentException("--provider is simulator or gke, not \"" + provider + "\"");
        }
    }

    /**
     * How {@code --gke-endpoint} is spoken to: plaintext without credentials on a loopback host (an API on this machine,
     * such as a standalone simulator), TLS with application-default credentials anywhere else.
     */
    static Transport transportTo(String hostPort) {
        String host = hostPort.substring(0, hostPort.lastIndexOf(':'));
        boolean loopback = LOOPBACK.contains(host) || host.startsWith("127.");
        return loopback ? Transport.PLAINTEXT : Transport.TLS;
    }

    /**
     * How {@code --filestore-endpoint} is spoken to, as {@code --gke-endpoint} is: {@code http://HOST:PORT} on a loopback
     * host is plaintext without credentials (a standalone simulator), {@code https://HOST[:PORT]} is TLS with
     * application-default credentials; Cloud Monitoring's read goes to the same address. Plain HTTP to another host is
     * refused: the calls would carry no credentials over a network.
     */
    public static FilestoreSharedVolumeProvider.Endpoint filestoreAt(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || uri.getPort() == 0 || (uri.getPath() != null && !uri.getPath().isEmpty())
                || uri.getQuery() != null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            throw new IllegalArgumentException("--filestore-endpoint takes http://HOST:PORT or https://HOST[:PORT], not \"" + url + "\"");
        }
        if ("https".equals(uri.getScheme())) {
            return new FilestoreSharedVolumeProvider.Endpoint(url, url, Transport.TLS, null);
        }
        if (uri.getPort() < 0 || transportTo(uri.getHost() + ":" + uri.getPort()) != Transport.PLAINTEXT) {
            throw new IllegalArgumentException("--filestore-endpoint over http is for this machine only (127.*, localhost, ::1) and"
                    + " names its port; use https:// for another host, not \"" + url + "\"");
        }
        return new FilestoreSharedVolumeProvider.Endpoint(url, url, Transport.PLAINTEXT, null);
    }

    /**
     * Gives the simulator's clusters a Kubernetes API (adapters-k8s-simulator): once RUNNING, each reports an endpoint
     * on the one HTTPS server of {@link SimulatedKubernetesApis} and its CA, and shows its node pools' nodes.
     */
    static SimulatedKubernetesApis withKubernetesApis(GkeSimulator simulator, Clock clock, Path state, SimulatedKubernetesApis.Settings settings) {
        SimulatedKubernetesApis apis = SimulatedKubernetesApis.start(clock, nodesOf(simulator), state, settings);
        // kube-proxy's health answers, as the simulated clusters' nodes give them, for the simulator's load balancers
        simulator.backendHealth((project, zone, instance, port, path) -> apis.nodeServes(instance, port));
        simulator.clusterEndpoints(new ClusterEndpoints() {
            @Override
            public Endpoint endpointFor(String project, String location, String cluster) {
                return new Endpoint(apis.endpointFor(project, location, cluster), apis.caCertificateBase64());
            }

            @Override
            public void gone(String project, String location, String cluster) {
                apis.forget(project, location, cluster);
            }
        });
        return apis;
    }

    /**
     * The simulator's node pools as nodes, as GKE makes them: the node config's labels and taints on every
     * node, the accelerator type as {@code cloud.google.com/gke-accelerator} and its count as the node's
     * {@code nvidia.com/gpu} capacity; and the cluster's control plane version, what its API's {@code /version} says.
     */
    static SimulatedKubernetesApis.NodeSource nodesOf(GkeSimulator simulator) {
        return new SimulatedKubernetesApis.NodeSource() {
            @Override
            public Map<String, SimulatedKubernetesApis.NodePool> nodePools(String project, String location, String cluster) {
                Map<String, GkeSimulator.PoolNodes> pools = simulator.nodePools(project, location, cluster);
                if (pools == null) {
                    return null;
                }
                Map<String, SimulatedKubernetesApis.NodePool> out = new java.util.LinkedHashMap<>();
                pools.forEach((name, pool) -> out.put(name, nodePool(pool)));
                return out;
            }

            @Override
            public String masterVersion(String project, String location, String cluster) {
                return simulator.masterVersion(project, location, cluster);
            }

            @Override
            public boolean identityService(String project, String location, String cluster) {
                return simulator.identityService(project, location, cluster);
            }
        };
    }

    static SimulatedKubernetesApis.NodePool nodePool(GkeSimulator.PoolNodes nodes) {
        NodeConfig config = nodes.pool().getConfig();
        Map<String, String> labels = new java.util.LinkedHashMap<>(config.getLabelsMap());
        int gpus = 0;
        if (config.getAcceleratorsCount() > 0) {
            AcceleratorConfig accelerator = config.getAccelerators(0);
            labels.put("cloud.google.com/gke-accelerator", accelerator.getAcceleratorType());
            gpus = (int) accelerator.getAcceleratorCount();
        }
        List<SimulatedKubernetesApis.Taint> taints = config.getTaintsList().stream()
                .map(t -> new SimulatedKubernetesApis.Taint(t.getKey(), t.getValue(), effect(t.getEffect()))).toList();
        return new SimulatedKubernetesApis.NodePool(nodes.nodes(), labels, taints, gpus, config.getMachineType(),
                nodes.pool().getVersion());
    }

    private static String effect(NodeTaint.Effect effect) {
        return switch (effect) {
            case PREFER_NO_SCHEDULE -> "PreferNoSchedule";
            case NO_EXECUTE -> "NoExecute";
            default -> "NoSchedule";
        };
    }

    /** The embedded simulator's clusters' Kubernetes APIs, when there is an embedded simulator. */
    public Optional<SimulatedKubernetesApis> kubernetesApis() {
        return Optional.ofNullable(kubernetesApis);
    }

    public ClusterProvider provider() {
        return provider;
    }

    /**
     * The provider for one account: on real GKE an account with a {@code credentialsFile} is reached with
     * those credentials (its own project's, for a tenant's own account), others with the
     * application-default ones. A simulator or another endpoint serves every account alike.
     */
    public ClusterProvider provider(ProviderAccount account) {
        if (!perAccountCredentials || account.credentialsFile() == null) {
            return provider;
        }
        return byCredentials.computeIfAbsent(Path.of(account.credentialsFile()), GkeClusterProviders::google);
    }

    /**
     * The load balancers' provider for one account: the embedded simulator's Compute Engine API, or real Compute
     * Engine (with the account's credentials file when it names one); empty with {@code --gke-endpoint}, which names
     * no Compute Engine API.
     */
    public Optional<com.bettercompute.application.port.LoadBalancerProvider> loadBalancers(ProviderAccount account) {
        if (simulator != null) {
            return Optional.of(compute.computeIfAbsent("", k -> ComputeLoadBalancerProvider.at(simulator.computeUrl())));
        }
        if (!perAccountCredentials) {
            return Optional.empty();
        }
        String file = account.credentialsFile() == null ? "" : account.credentialsFile();
        return Optional.of(compute.computeIfAbsent(file, f -> f.isEmpty() ? ComputeLoadBalancerProvider.google()
                : ComputeLoadBalancerProvider.google(Path.of(f))));
    }

    /** The embedded simulator, when there is one: its {@link GkeSimulator#banner()} is worth printing at start. */
    public Optional<GkeSimulator> simulator() {
        return Optional.ofNullable(simulator);
    }

    @Override
    public void close() {
        if (controllers != null) {
            // a round under way finishes and saves (an interrupt would cut its file write short); none starts after
            controllers.shutdown();
            try {
                if (!controllers.awaitTermination(10, TimeUnit.SECONDS)) {
                    controllers.shutdownNow();
                }
            } catch (InterruptedException e) {
                controllers.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        byCredentials.values().forEach(GkeClusterProvider::close);
        compute.values().forEach(ComputeLoadBalancerProvider::close);
        provider.close();
        if (simulator != null) {
            simulator.close();
        }
        if (kubernetesApis != null) {
            kubernetesApis.close();
        }
    }
}
