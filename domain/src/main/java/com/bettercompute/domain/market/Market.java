package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * The GPU market: pools, tenants and their clusters, requests, node grants, and the tick that clears
 * every pool (docs/decisions/market-pricing.md, "The tick"). It is a plain mutable aggregate with no clock: every call takes
 * the instant it happens at, and the same calls in the same order give the same outcome.
 *
 * <p>This is the market's one door; it holds no rule. Each call goes to the part whose job it is: supply
 * ({@link Supply}), accounts ({@link Accounts}), demand ({@link Demand}), the life of gangs and grants
 * ({@link GrantLifecycle}), the tick ({@link MarketTick}), over one state and its reads ({@link MarketState}).
 * Outputs are values: {@link TickOutcome} (feed, events, charges, pool failures) and the events an input
 * between ticks causes. The whole state as values is {@link #snapshot()} ({@link MarketSnapshotCodec}).
 */
public final class Market {
    private final MarketState state;
    private final Supply supply;
    private final Accounts accounts;
    private final Demand demand;
    private final GrantLifecycle lifecycle;
    private final MarketTick tick;

    public Market(MarketTimings timings) {
        this(new MarketState(timings));
    }

    public Market() {
        this(MarketTimings.standard());
    }

    private Market(MarketState state) {
        this.state = state;
        ClusterQueues queues = new ClusterQueues(state);
        this.lifecycle = new GrantLifecycle(state, queues);
        this.supply = new Supply(state, queues, lifecycle);
        this.accounts = new Accounts(state, queues, supply);
        this.demand = new Demand(state, queues, lifecycle);
        this.tick = new MarketTick(state, queues, lifecycle);
    }

    public MarketTimings timings() {
        return state.timings();
    }

    /**
     * The operator's catalog changed the market's durations. They apply from the next decision on: grants
     * already made keep the hold and window they were given.
     */
    public void changeTimings(MarketTimings newTimings) {
        state.changeTimings(newTimings);
    }

    // ---------------------------------------------------------------- supply

    public void addPool(PoolId id, int gpusPerNode, Money reserve) {
        supply.addPool(id, gpusPerNode, reserve);
    }

    public void changeReserve(PoolId id, Money reserve) {
        supply.changeReserve(id, reserve);
    }

    public void addNode(String nodeId, PoolId poolId) {
        supply.addNode(nodeId, poolId);
    }

    /**
     * The operator removes a node for good (or, live, a granted node left its cluster). A gang on it
     * ends: Failed=True (MarketRevoked), its other nodes released (they drain), its job requeued as a
     * new request at its current limit. No replacement is owed: only a health-check cordon owes one.
     * The events come out with the next tick's.
     */
    public void removeNode(String nodeId, Instant at) {
        supply.removeNode(nodeId, at);
    }

    /**
     * Moves a free node into a cluster's base load block: out of market supply.
     *
     * @throws DomainException INVALID_STATE when the node is granted, in a block or draining
     */
    public void assignBlock(String clusterId, String nodeId) {
        supply.assignBlock(clusterId, nodeId);
    }

    /**
     * Sizes a cluster's base load block in a pool to {@code count} nodes: free nodes join it (in id
     * order), unseated block nodes leave it back to supply. All or nothing.
     *
     * @throws DomainException INVALID_STATE when not enough nodes are free, or too many block nodes hold
     *                         seated requests to shrink
     */
    public void sizeBlock(String clusterId, PoolId poolId, int count) {
        supply.sizeBlock(clusterId, poolId, count);
    }

    // ---------------------------------------------------------------- accounts

    public void addTenant(String tenantId, Money credits) {
        accounts.addTenant(tenantId, credits);
    }

    public void credit(String tenantId, Money amount) {
        accounts.credit(tenantId, amount);
    }

    /**
     * A charge billed outside the market (a shared volume's hour of storage), taken off the tenant's one balance in
     * full: the balance checks ({@code BalanceTooLow} at admission and at every tick, a balance run out) see it as they
     * see the GPU charges. Unlike those it is not capped at what is left, since the bytes were held whatever the
     * balance: it can take the balance below zero, and the next top-up pays it first.
     *
     * @throws DomainException NOT_FOUND for a tenant the market does not have
     */
    public void chargeElsewhere(String tenantId, Money amount) {
        accounts.chargeElsewhere(tenantId, amount);
    }

    public void addCluster(String clusterId, String tenantId, long maxGpus, Money limit) {
        accounts.addCluster(clusterId, tenantId, maxGpus, limit);
    }

    /**
     * The operator changes a cluster's max cluster size and packing. A larger size files queued requests
     * at once; a smaller one never takes back what is filed (only new filings wait). A held job's message names
     * the new size (its cluster's queue, not the market, decides when it files).
     */
    public void changeCluster(String clusterId, long maxGpus, boolean packing, Instant at) {
        accounts.changeCluster(clusterId, maxGpus, packing, at);
    }

    /**
     * Takes a cluster out of the market. Only an empty cluster leaves: no open request and no grant
     * (its limit withdrawn, its jobs ended, its idle nodes returned), so the book is never left with
     * requests or grants of a cluster it no longer knows. Its block nodes return to supply.
     *
     * @throws DomainException INVALID_STATE naming what it still holds
     */
    public void removeCluster(String clusterId) {
        accounts.removeCluster(clusterId);
    }

    /** Sets (or with null withdraws) a cluster's limit price. The reserve check is the caller's. */
    public void setClusterLimit(String clusterId, Money limit) {
        accounts.setClusterLimit(clusterId, limit);
    }

    /** {@link #setClusterLimit(String, Money)}, noting when, for the limit price read's {@code updated_at}. */
    public void setClusterLimit(String clusterId, Money limit, Instant at) {
        accounts.setClusterLimit(clusterId, limit, at);
    }

    // ---------------------------------------------------------------- demand

    /**
     * Files a job's request: whole nodes go to the cluster's queue and file with the market at once
     * while the max cluster size allows; a request under one node waits for the base load block.
     *
     * A job {@link #hold held} in its cluster's queue files its held request.
     *
     * @throws DomainException INVALID_INPUT when the GPUs are neither under one node nor whole nodes
     *                         (reason JobSizeNotNodeAligned), CONFLICT when the job has an open request
     */
    public MarketRequest file(JobDemand jobDemand, Instant at) {
        return demand.file(jobDemand, at);
    }

    /**
     * Records a job that waits in its cluster's own queue over the max cluster size, not filed: it reads
     * {@code InsufficientQuota} with a message naming the max cluster size, and files when {@link #file} is
     * called for it (its cluster's queue let it go). A held request never files by itself.
     *
     * @throws DomainException as {@link #file} does
     */
    public MarketRequest hold(JobDemand jobDemand, Instant at) {
        return demand.hold(jobDemand, at);
    }

    /** Whether the job's open request is one {@link #hold} recorded and no {@link #file} has released yet. */
    public boolean held(String jobId) {
        MarketRequest r = state.openByJob.get(jobId);
        return r != null && demand.held(r);
    }

    /** The job ended or was deleted: a gang's nodes stay with the cluster as idle nodes (hold, idle grace). */
    public void endJob(String jobId, Instant at) {
        demand.endJob(jobId, at);
    }

    /** Sets (or with null removes) a job's own limit price label; read at the next tick. */
    public void setJobLimit(String jobId, Money limit) {
        demand.setJobLimit(jobId, limit);
    }

    /**
     * Changes an open request's priority class (its job's label changed). It orders only the cluster's own
     * queue and who takes the base load block's GPUs next, both read afresh at every tick, so a request
     * already filed keeps its market position: priority never buys one.
     *
     * @return whether it changed
     */
    public boolean setJobPriority(String jobId, PriorityClass priority) {
        return demand.setJobPriority(jobId, priority);
    }

    // ---------------------------------------------------------------- node facts

    /**
     * A granted node is ready in its cluster: its minimum hold and protection window start now (a
     * replacement keeps what remains of the one it replaces), and it bills from now. When every node
     * of its gang is ready the gang is Provisioned=True. Idempotent; a node with no grant is ignored.
     *
     * @return the events this caused (the gang's reason, {@link MarketEvent.GangProvisioned}), to be
     *         applied at once: a job starts when its gang is provisioned
     */
    public List<MarketEvent> nodeReady(String nodeId, Instant at) {
        return lifecycle.nodeReady(state.node(nodeId), at);
    }

    /**
     * A base load block node is ready in its cluster: it seats sub-node requests from the next tick on. Until
     * then the block is not live and those requests wait. Idempotent; a node outside any block is ignored.
     */
    public void blockNodeReady(String nodeId, Instant at) {
        supply.blockNodeReady(nodeId, at);
    }

    /**
     * A base load block node that was ready left its cluster: the requests seated on it wait for the block
     * again. Idempotent; a node outside any block, or not ready, is ignored.
     */
    public void blockNodeLeft(String nodeId) {
        supply.blockNodeLeft(nodeId);
    }

    /**
     * Health checks cordoned a node: its grant stops billing now and, while protected, the cluster is
     * owed a replacement at the locked rate.
     */
    public void nodeOutOfService(String nodeId, Instant at) {
        supply.nodeOutOfService(nodeId, at);
    }

    /** Health checks cleared a node: back in service, as idle capacity of the cluster that lost it. */
    public void nodeBack(String nodeId, Instant at) {
        supply.nodeBack(nodeId, at);
    }

    // ---------------------------------------------------------------- the tick

    /**
     * Runs one tick over every pool at {@code now} (docs/decisions/market-pricing.md, "The tick"). A pool whose clearing
     * fails is left as it stands and reported in {@link TickOutcome#failures()}; the others clear.
     *
     * @throws DomainException INVALID_INPUT when {@code now} is before the last tick
     */
    public TickOutcome tick(Instant now) {
        return tick.run(now);
    }

    /** How many pool clearings failed since this market was built or restored. */
    public long clearingFailures() {
        return tick.clearingFailures();
    }

    // ---------------------------------------------------------------- snapshot

    /**
     * What changed since this market was restored or its changes were last cleared ({@link MarketChanges}):
     * what a persistence adapter writes instead of comparing whole snapshots.
     *
     * @throws DomainException INVALID_STATE on a market not restored from a snapshot (it records nothing)
     */
    public MarketChanges changes() {
        if (!state.changes.recording()) {
            throw new DomainException(ErrorCode.INVALID_STATE, "only a market restored from a snapshot records its changes");
        }
        return MarketSnapshotCodec.changes(state);
    }

    /** The changes of {@link #changes()} are stored: record from here on. */
    public void clearChanges() {
        state.changes.clear();
    }

    /** The market's whole state as values (see {@link MarketSnapshot}). */
    public MarketSnapshot snapshot() {
        return MarketSnapshotCodec.encode(state);
    }

    /** Rebuilds a market from a snapshot; it then decides exactly as the market the snapshot was taken of. */
    public static Market restore(MarketSnapshot s) {
        return new Market(MarketSnapshotCodec.decode(s));
    }

    // ---------------------------------------------------------------- reads

    public Pool pool(PoolId id) {
        return state.book(id).pool;
    }

    public Collection<Pool> pools() {
        return state.pools();
    }

    public int supply(PoolId id) {
        return state.book(id).supply;
    }

    public int freeNodes(PoolId id) {
        return state.book(id).free.size();
    }

    /** The last tick's clearing price of a pool, null when nothing cleared. */
    public Money lastPrice(PoolId id) {
        return state.book(id).lastPrice;
    }

    public Tenant tenant(String id) {
        return state.tenant(id);
    }

    public boolean hasTenant(String id) {
        return state.tenants.containsKey(id);
    }

    public boolean hasCluster(String id) {
        return state.clusters.containsKey(id);
    }

    public TenantCluster cluster(String id) {
        return state.cluster(id);
    }

    public Collection<TenantCluster> clusters() {
        return state.clusters();
    }

    public Node node(String id) {
        return state.node(id);
    }

    public Collection<Node> nodes(PoolId pool) {
        return state.nodes(pool);
    }

    /** The open request of a job (the latest attempt), or NOT_FOUND. */
    public MarketRequest openRequest(String jobId) {
        return state.openRequest(jobId);
    }

    public boolean hasOpenRequest(String jobId) {
        return state.openByJob.containsKey(jobId);
    }

    /** Every open request (not closed or revoked), in filing order. */
    public List<MarketRequest> openRequests() {
        return state.openRequests();
    }

    /** Every live grant (not ended), in grant order. */
    public List<NodeGrant> liveGrants() {
        return state.liveGrants();
    }

    /**
     * A tenant's open ledger entries as they stand at the last tick, in grant order: what each of its grants
     * accrued since its entry opened. Its balance counts them already; the ledger gets each when it closes
     * (its rate changes, its grant ends, or its billing period ends).
     */
    public List<Charge> openEntries(String tenantId) {
        return state.openEntries(tenantId);
    }

    public Instant lastTick() {
        return state.lastTick;
    }
}
