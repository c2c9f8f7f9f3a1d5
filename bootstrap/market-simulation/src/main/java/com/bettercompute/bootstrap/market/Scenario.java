package com.bettercompute.bootstrap.market;

import java.util.List;

/**
 * A market scenario as written in YAML (docs/operators/market-simulation.md). Durations are strings such as
 * {@code 90s}, {@code 30m}, {@code 6h}, {@code 2d} or {@code 1d6h}; prices are USD strings such as
 * {@code "2.40"} (per GPU-hour) and amounts USD strings such as {@code "50000"}. {@code nodeReadyAfter}
 * is how long a granted node takes to be ready in its cluster (default {@code 0}: at once); the
 * minimum hold, the protection window and billing start then.
 */
public record Scenario(String name, Long seed, String duration, String tick, String nodeReadyAfter,
                       List<PoolSpec> pools,
                       List<TenantSpec> tenants, List<JobSpec> jobs, List<ArrivalSpec> arrivals,
                       List<FailureSpec> failures, List<EventSpec> events) {

    /** A pool: {@code site/nodeClass}, GPUs per node, node count and reserve price. */
    public record PoolSpec(String pool, Integer gpusPerNode, Integer nodes, String reserve) {
    }

    public record TenantSpec(String id, String credits, List<ClusterSpec> clusters) {
    }

    /** A tenant cluster: max cluster size in GPUs, cluster-wide limit price (optional), base load block (optional). */
    public record ClusterSpec(String id, Long maxGpus, String limit, BlockSpec block) {
    }

    public record BlockSpec(String pool, Integer nodes) {
    }

    /** One job: arrives {@code at}, runs {@code duration} once its gang is provisioned. */
    public record JobSpec(String id, String at, String cluster, String pool, Integer gpus, String duration,
                          String limit, String priority) {
    }

    /**
     * Random jobs from a seed: exponential inter-arrival times of mean {@code every} between
     * {@code from} and {@code until}; GPUs picked from the list; duration and limit uniform in
     * [min, max]; priority picked from the list.
     */
    public record ArrivalSpec(String name, String cluster, String pool, String from, String until, String every,
                              List<Integer> gpus, List<String> duration, List<String> limit, List<String> priority) {
    }

    /** Random node failures in a pool: exponential inter-failure of mean {@code every}, repaired after {@code repairAfter}. */
    public record FailureSpec(String pool, String from, String until, String every, String repairAfter) {
    }

    /** A change at a time; exactly one of the fields besides {@code at} is set. */
    public record EventSpec(String at, ReserveChange setReserve, ClusterLimitChange setClusterLimit,
                            JobLimitChange setJobLimit, NodeCount addNodes, NodeCount removeNodes,
                            NodeFailure failNodes, Credit credit) {
    }

    public record ReserveChange(String pool, String price) {
    }

    /** {@code limit: null} (or absent) withdraws the cluster's limit. */
    public record ClusterLimitChange(String cluster, String limit) {
    }

    /** {@code limit: null} (or absent) removes the job's own label: it falls back to its cluster's. */
    public record JobLimitChange(String job, String limit) {
    }

    public record NodeCount(String pool, Integer count) {
    }

    /** Health checks take {@code count} nodes out of service, granted ones first; back after {@code repairAfter}. */
    public record NodeFailure(String pool, Integer count, String repairAfter) {
    }

    public record Credit(String tenant, String amount) {
    }
}
