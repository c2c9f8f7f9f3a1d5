package com.bettercompute.application.incluster;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ComponentStatus;

import java.util.List;
import java.util.Optional;

/**
 * Keeps the add-ons the market relies on running in a market-managed cluster (Kueue, JobSet, the MPI
 * Operator at the platform's pinned versions): installs them, repairs what drifted, rolls out a new pinned
 * version, and says whether every one is ready. The market takes a cluster's demand only once they are —
 * before that its Kueue objects would name a controller that does not run.
 */
public final class KeepClusterComponents {
    /** What one pass found: each add-on as it stands; {@code reachable} false when the cluster is not reachable yet. */
    public record Outcome(boolean reachable, List<ComponentStatus> components) {
        public Outcome {
            components = List.copyOf(components);
        }

        /** Whether the cluster is reachable and every add-on is ready. */
        public boolean ready() {
            return reachable && components.stream().allMatch(ComponentStatus::ready);
        }

        /** What the add-ons not ready wait for, one line ({@code ""} when all are ready). */
        public String waitingFor() {
            if (!reachable) {
                return "the cluster's Kubernetes API is not reachable yet";
            }
            return String.join("; ", components.stream().filter(c -> !c.ready())
                    .map(c -> c.name() + " " + c.version() + ": " + c.detail()).toList());
        }
    }

    private final ClusterConnections connections;
    private final MarketClusterClient clusters;

    public KeepClusterComponents(ClusterConnections connections, MarketClusterClient clusters) {
        this.connections = connections;
        this.clusters = clusters;
    }

    /**
     * @throws com.bettercompute.application.port.ProviderException when the cluster's API failed
     */
    public Outcome keep(String clusterId) {
        Optional<ClusterConnection> connection = connections.cluster(clusterId).isEmpty() ? Optional.empty() : connections.of(clusterId);
        if (connection.isEmpty()) {
            return new Outcome(false, List.of());
        }
        return new Outcome(true, clusters.ensureComponents(connection.get()));
    }
}
