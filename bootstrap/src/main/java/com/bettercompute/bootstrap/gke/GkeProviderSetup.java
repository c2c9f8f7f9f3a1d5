package com.bettercompute.bootstrap.gke;

import com.bettercompute.adapters.gke.GkeClusterProvider;
import com.bettercompute.adapters.gke.GkeClusterProviders;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.provider.ClusterProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@link ClusterProvider} the server runs with, from its options: {@code --gke-endpoint HOST:PORT}
 * wins (any GKE API, e.g. a standalone simulator; nothing is started), else {@code --provider gke}
 * (real GKE, application-default credentials) or {@code --provider simulator} (the default: a GKE
 * simulator in-process on free loopback ports, reached over gRPC like real GKE).
 */
public final class GkeProviderSetup implements AutoCloseable {
    private final GkeClusterProvider provider;
    private final GkeSimulator simulator;

    private GkeProviderSetup(GkeClusterProvider provider, GkeSimulator simulator) {
        this.provider = provider;
        this.simulator = simulator;
    }

    /**
     * @param provider          {@code simulator} or {@code gke}
     * @param gkeEndpoint       null, or {@code HOST:PORT}
     * @param simOperation      how long the embedded simulator's operations take
     * @param clock             the embedded simulator's clock
     */
    public static GkeProviderSetup from(String provider, String gkeEndpoint, Duration simOperation, Clock clock) {
        if (gkeEndpoint != null && !gkeEndpoint.isBlank()) {
            if (!gkeEndpoint.matches("[^\\s/]+:\\d{1,5}")) {
                throw new IllegalArgumentException("--gke-endpoint takes HOST:PORT, not \"" + gkeEndpoint + "\"");
            }
            return new GkeProviderSetup(GkeClusterProviders.grpc(gkeEndpoint), null);
        }
        switch (provider == null ? "simulator" : provider) {
            case "gke":
                return new GkeProviderSetup(GkeClusterProviders.google(), null);
            case "simulator": {
                GkeSimulator simulator = GkeSimulator.start(clock, simOperation, 0, 0, GkeSimulatorCommand.SLEEP);
                try {
                    return new GkeProviderSetup(GkeClusterProviders.grpc(simulator.grpcTarget()), simulator);
                } catch (RuntimeException e) {
                    simulator.close();
                    throw e;
                }
            }
            default:
                throw new IllegalArgumentException("--provider is simulator or gke, not \"" + provider + "\"");
        }
    }

    public ClusterProvider provider() {
        return provider;
    }

    /** The embedded simulator, when there is one: its {@link GkeSimulator#banner()} is worth printing at start. */
    public Optional<GkeSimulator> simulator() {
        return Optional.ofNullable(simulator);
    }

    @Override
    public void close() {
        provider.close();
        if (simulator != null) {
            simulator.close();
        }
    }
}
