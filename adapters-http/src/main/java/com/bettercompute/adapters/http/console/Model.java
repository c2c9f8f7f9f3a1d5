package com.bettercompute.adapters.http.console;

import java.util.List;
import java.util.Map;

/**
 * What the console's templates render: one record per page, each holding only text ready to show (times as
 * RFC 3339 UTC, which the page writes in a {@code <time>} element the viewer's browser localises). Public
 * because the precompiled templates live in their own package.
 */
public final class Model {
    private Model() {}

    /** What every page's frame shows. {@code csrf} null when signed out; {@code cluster} null outside a cluster. */
    public record Chrome(String title, String section, String who, String org, String csrf, ClusterNav cluster,
                         String live, String flash) {
        public boolean signedIn() {
            return csrf != null;
        }
    }

    /** The tabs of a cluster's pages; the market tabs only for a market-managed cluster. */
    public record ClusterNav(String id, String name, boolean market, String tab) {}

    /** A form as it was sent back: what was typed, and the problem beside each field (API field names). */
    public record Form(Map<String, String> values, Map<String, String> errors, String message) {
        public static final Form EMPTY = new Form(Map.of(), Map.of(), null);

        public Form {
            values = Map.copyOf(values);
            errors = Map.copyOf(errors);
        }

        public String value(String field) {
            return values.getOrDefault(field, "");
        }

        public String value(String field, String otherwise) {
            return values.getOrDefault(field, otherwise);
        }

        public String error(String field) {
            return errors.get(field);
        }

        public boolean invalid() {
            return !errors.isEmpty() || message != null;
        }
    }

    public record SignInPage(Chrome chrome, String next, String error) {}

    public record ClusterRow(String id, String name, String mode, String location, String state, String version,
                             String createdAt) {}

    public record ClustersPage(Chrome chrome, List<ClusterRow> clusters, Form create, List<String> modes) {}

    public record ClusterDetail(String id, String name, String state, String message, String mode, String location,
                                String channel, String requestedVersion, String kubernetesVersion, String nodeVersion,
                                String endpoint, String createdAt, String readyAt, String description) {}

    public record PoolRow(String id, String name, String machineType, int nodeCount, String accelerators, String state,
                          String message) {}

    public record EventRow(String at, String type, String words) {}

    public record PoolPrice(String pool, String reserve, String lastPrice) {}

    /** The cluster's place in the market: null on the page of a cluster the market does not manage. */
    public record MarketPanel(long maxClusterGpus, long usedGpus, String limit, boolean bidTooLow, String limitSetAt,
                              List<PoolPrice> pools) {}

    public record ClusterPage(Chrome chrome, ClusterDetail cluster, List<PoolRow> pools, List<EventRow> events,
                              MarketPanel market, VolumePanel volume, Form addPool, Form resize, Form limit, Form delete,
                              String kubeconfigCommand, String setupCommand) {}

    /** A cluster's shared volume on its page: where every node mounts it. {@code storageName} null when it is the label. */
    public record VolumePanel(String path, String label, String storageName, String size, String state) {}

    /**
     * A row of the Storage page. {@code storageName} null when it is the label ({@code confirmName} is what to type
     * either way); {@code cluster} null: preserved, no cluster; {@code bytes} null before the first sample; the charges
     * null where storage billing is off for the volume's site.
     */
    public record VolumeRow(String label, String storageName, String confirmName, String cluster, String clusterId,
                            String state, String path, String size, String bytes, Long exactBytes, String chargePerMonth,
                            String charged, String message, boolean deletable) {}

    /** {@code refused}: the storage name whose delete form {@code delete} sends back; null: none. */
    public record StoragePage(Chrome chrome, String org, List<VolumeRow> volumes, boolean billing, String refused, Form delete) {}

    public record EpisodeRow(int number, String queuedAt, String runningAt, String endedAt, String end, String queuedFor,
                             String ranFor) {}

    public record WorkloadRow(String id, String job, int attempt, String pool, int gpus, int nodes, String limit,
                              String limitSource, String priority, String phase, String reason, String words,
                              List<String> marks, int grantedNodes, String lockedRate, String queuedSince,
                              String runningSince, List<EpisodeRow> episodes, String queuedTotal, String runningTotal) {}

    /**
     * A Service of type LoadBalancer on a cluster's Workloads page: {@code address} null while it is pending
     * ({@code why} then says why), {@code ports} the TCP ports its address serves.
     */
    public record ServiceRow(String service, String address, String ports, String state, String why) {}

    /** {@code services} null: the site serves no load balancers, and the page shows no Services section. */
    public record WorkloadsPage(Chrome chrome, long maxClusterGpus, long usedGpus, String limit,
                                List<WorkloadRow> open, List<WorkloadRow> closed, List<ServiceRow> services) {}

    public record NodeTile(String node, String pool, String job, String lockedRate, String holdUntil,
                           String protectedUntil, String state, String stateClass, String deadline, boolean replacement) {}

    public record NodesPage(Chrome chrome, List<NodeTile> nodes) {}

    public record PoolChart(String pool, String id, String svg, String price, String reserve, int supply, int demand,
                            int granted, String at) {}

    public record MarketPage(Chrome chrome, List<PoolChart> pools) {}

    public record LedgerRow(String kind, String at, String amount, String cluster, String pool, String node, String rate,
                            String gpus, String from, String to, String note) {}

    public record ChargeTotal(String cluster, String pool, String amount, String gpuHours) {}

    public record BalancePage(Chrome chrome, String org, String credits, String charged, String balance,
                              List<ChargeTotal> totals, List<LedgerRow> ledger) {}

    public record ProblemPage(Chrome chrome, int status, String heading, String message) {}
}
