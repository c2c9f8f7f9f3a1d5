package com.bettercompute.bootstrap.market;

import static com.bettercompute.bootstrap.market.SimulationAdapters.NO_OUTBOX;
import static com.bettercompute.bootstrap.market.SimulationAdapters.NO_TRANSACTIONS;

import com.bettercompute.application.market.ChangeReservePrice;
import com.bettercompute.application.market.FileMarketRequest;
import com.bettercompute.application.market.ReportJobEnded;
import com.bettercompute.application.market.ReportNodeBack;
import com.bettercompute.application.market.ReportNodeLeft;
import com.bettercompute.application.market.ReportNodeOutOfService;
import com.bettercompute.application.market.ReportNodeReady;
import com.bettercompute.application.market.RunMarketTick;
import com.bettercompute.application.market.SetLimitPrice;
import com.bettercompute.application.market.WithdrawLimitPrice;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Node;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PriorityClass;
import com.bettercompute.domain.market.TickOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A discrete-event simulation of the market on a virtual clock: scenario actions (arrivals, job
 * completions, limit and reserve changes, supply changes, failures and repairs) happen at their
 * instants, and the real engine ticks through {@link RunMarketTick} every {@code tick}. The same
 * scenario and seed give the same result.
 */
final class MarketSimulation {
    static final Instant START = Instant.parse("2026-01-05T00:00:00Z");
    /** The most nodes one count of a scenario may name (a pool's nodes, a block, an event's count). */
    static final int MAX_NODES = 100_000;
    /** The most nodes a scenario may hold at once, over all pools and blocks. */
    static final int MAX_TOTAL_NODES = 1_000_000;
    /** The most jobs a scenario may define or generate. */
    static final int MAX_JOBS = 1_000_000;
    /** The most GPUs per node of a pool. */
    static final int MAX_GPUS_PER_NODE = 64;

    private record Action(Instant at, long seq, String what, Runnable run) {
    }

    private final Scenario scenario;
    private final VirtualClock clock = new VirtualClock(START);
    private final Market market = new Market();
    private final SimulationAdapters.Repository repository = new SimulationAdapters.Repository(market);
    private final SimulationAdapters.Ledger ledger = new SimulationAdapters.Ledger();
    private final SimulationAdapters.Feed feed = new SimulationAdapters.Feed();
    private final SimulationAdapters.Effects effects = new SimulationAdapters.Effects();
    // the market's inputs as the server runs them, on the simulation's one thread: no lock, no outbox kept
    private final ReportNodeReady reportReady = new ReportNodeReady(NO_TRANSACTIONS, repository, NO_OUTBOX, effects, clock);
    private final ReportJobEnded reportJobEnded = new ReportJobEnded(NO_TRANSACTIONS, repository, NO_OUTBOX, clock);
    private final FileMarketRequest fileRequest = new FileMarketRequest(NO_TRANSACTIONS, repository, NO_OUTBOX, clock);
    private final ChangeReservePrice changeReserve = new ChangeReservePrice(NO_TRANSACTIONS, repository);
    private final WithdrawLimitPrice withdrawLimit = new WithdrawLimitPrice(NO_TRANSACTIONS, repository);
    private final SetLimitPrice setLimit = new SetLimitPrice(NO_TRANSACTIONS, repository);
    private final ReportNodeLeft reportNodeLeft = new ReportNodeLeft(NO_TRANSACTIONS, repository, NO_OUTBOX, clock);
    private final ReportNodeOutOfService reportOutOfService = new ReportNodeOutOfService(NO_TRANSACTIONS, repository, NO_OUTBOX, clock);
    private final ReportNodeBack reportNodeBack = new ReportNodeBack(NO_TRANSACTIONS, repository, NO_OUTBOX, clock);
    private final PriorityQueue<Action> actions =
            new PriorityQueue<>(Comparator.comparing(Action::at).thenComparingLong(Action::seq));
    private final Map<String, SimJob> jobs = new LinkedHashMap<>();
    private final Map<String, String> tenantOfCluster = new HashMap<>();
    private final Map<PoolId, Integer> nodeCounter = new TreeMap<>();
    private final Map<String, Money> initialCredits = new LinkedHashMap<>();
    private final SplittableRandom failureRandom;
    private long seq;
    private Duration length;
    private Duration tick;
    private Duration nodeReadyAfter = Duration.ZERO;

    private MarketSimulation(Scenario scenario) {
        this.scenario = scenario;
        this.failureRandom = new SplittableRandom(seed() ^ 0x5DEECE66DL);
    }

    static SimulationResult run(Scenario scenario) {
        return new MarketSimulation(scenario).execute();
    }

    private long seed() {
        return scenario.seed() == null ? 1L : scenario.seed();
    }

    private SimulationResult execute() {
        long wallStart = System.nanoTime();
        build();
        RunMarketTick runTick = new RunMarketTick(NO_TRANSACTIONS, repository, ledger, feed, NO_OUTBOX, effects, clock);
        Instant end = START.plus(length);
        long ticks = 0;
        for (Instant t = START; !t.isAfter(end); t = t.plus(tick)) {
            while (!actions.isEmpty() && !actions.peek().at().isAfter(t)) {
                Action a = actions.poll();
                clock.set(a.at());
                a.run().run();
            }
            clock.set(t);
            TickOutcome outcome = runTick.run();
            follow(outcome.events());
            ticks++;
        }
        long wallNanos = System.nanoTime() - wallStart;
        return new SimulationResult(scenario, seed(), START, length, tick, ticks, wallNanos, market, feed, ledger,
                effects, new ArrayList<>(jobs.values()), initialCredits, List.copyOf(refusedWrites), failures);
    }

    /**
     * Granted nodes become ready after the scenario's {@code nodeReadyAfter}; a job starts when its gang
     * is provisioned (or, under one node, when it is seated on its cluster's block) and stops, keeping
     * its progress, when its gang is revoked.
     */
    private void follow(List<MarketEvent> events) {
        for (MarketEvent e : events) {
            if (e instanceof MarketEvent.NodeGranted g) {
                if (nodeReadyAfter.isZero()) {
                    ready(g.nodeId());
                } else {
                    schedule(g.at().plus(nodeReadyAfter), "ready " + g.nodeId(), () -> {
                        // the node may have been reclaimed and granted again since: only its own grant readies
                        var grant = repository.load().node(g.nodeId()).grant();
                        if (grant != null && grant.id().equals(g.grantId())) {
                            ready(g.nodeId());
                        }
                    });
                }
            } else if (e instanceof MarketEvent.GangProvisioned p) {
                start(jobs.get(p.jobId()), p.at(), p.lockedRate());
            } else if (e instanceof MarketEvent.BlockSeated b) {
                start(jobs.get(b.jobId()), b.at(), null);
            } else if (e instanceof MarketEvent.GangRevoked r) {
                SimJob job = jobs.get(r.jobId());
                if (job == null) {
                    continue;
                }
                if (job.running) {
                    Duration ran = Duration.between(job.startedAt, r.at());
                    job.remaining = job.remaining.minus(ran).isNegative() ? Duration.ZERO : job.remaining.minus(ran);
                    job.running = false;
                }
                job.token++;
                job.reclaims++;
                job.requeuedAt = r.at();
            }
        }
    }

    private void ready(String nodeId) {
        follow(reportReady.report(new ReportNodeReady.Command(nodeId)));
    }

    /** A job runs from {@code at} for what remains of it; {@code lockedRate} is null for a seat on a block. */
    private void start(SimJob job, Instant at, Money lockedRate) {
        if (job == null || job.running || job.completedAt != null) {
            return;
        }
        job.running = true;
        job.startedAt = at;
        if (job.firstStart == null) {
            job.firstStart = at;
            job.firstLockedRate = lockedRate;
        } else if (job.requeuedAt != null) {
            job.requeueWaits.add(Duration.between(job.requeuedAt, at));
        }
        int token = ++job.token;
        schedule(at.plus(job.remaining), "end " + job.id, () -> {
            if (job.token == token && job.running) {
                job.running = false;
                job.completedAt = clock.instant();
                job.remaining = Duration.ZERO;
                reportJobEnded.report(new ReportJobEnded.Command(job.id));
            }
        });
    }

    // ---------------------------------------------------------------- the scenario, checked as it is built

    private void build() {
        length = Durations.parse(scenario.duration(), "duration");
        tick = scenario.tick() == null ? Duration.ofSeconds(10) : Durations.parse(scenario.tick(), "tick");
        if (tick.isZero() || tick.isNegative()) {
            throw new ScenarioException("tick: must be longer than zero");
        }
        if (scenario.nodeReadyAfter() != null) {
            nodeReadyAfter = Durations.parse(scenario.nodeReadyAfter(), "nodeReadyAfter");
        }
        if (length.dividedBy(tick) > 2_000_000) {
            throw new ScenarioException("duration / tick: more than 2,000,000 ticks; use a longer tick");
        }
        require(scenario.pools() != null && !scenario.pools().isEmpty(), "pools: at least one pool is required");
        for (int i = 0; i < scenario.pools().size(); i++) {
            Scenario.PoolSpec p = scenario.pools().get(i);
            String at = "pools[" + i + "]";
            PoolId id = at(at + ".pool", () -> PoolId.parse(required(p.pool(), at + ".pool")));
            int perNode = p.gpusPerNode() == null ? 8 : p.gpusPerNode();
            require(perNode >= 1 && perNode <= MAX_GPUS_PER_NODE,
                    at + ".gpusPerNode: " + perNode + " is not between 1 and " + MAX_GPUS_PER_NODE);
            Money reserve = price(p.reserve() == null ? "0" : p.reserve(), at + ".reserve");
            require(!nodeCounter.containsKey(id), at + ".pool: pool " + id + " is defined twice");
            at(at, () -> {
                market.addPool(id, perNode, reserve);
                return null;
            });
            nodeCounter.put(id, 0);
            int nodes = p.nodes() == null ? 0 : p.nodes();
            require(nodes >= 0, at + ".nodes: cannot be negative");
            require(nodes <= MAX_NODES, at + ".nodes: " + nodes + " is too many: at most " + MAX_NODES + " per pool");
            addNodes(id, nodes, at + ".nodes");
        }
        require(scenario.tenants() != null && !scenario.tenants().isEmpty(), "tenants: at least one tenant is required");
        for (int i = 0; i < scenario.tenants().size(); i++) {
            Scenario.TenantSpec t = scenario.tenants().get(i);
            String at = "tenants[" + i + "]";
            String tenantId = required(t.id(), at + ".id");
            Money credits = at(at + ".credits", () -> Money.parse(t.credits() == null ? "0" : t.credits()));
            require(!initialCredits.containsKey(tenantId), at + ".id: tenant " + tenantId + " is defined twice");
            at(at, () -> {
                market.addTenant(tenantId, credits);
                return null;
            });
            initialCredits.put(tenantId, credits);
            require(t.clusters() != null && !t.clusters().isEmpty(), at + ".clusters: at least one cluster is required");
            for (int c = 0; c < t.clusters().size(); c++) {
                Scenario.ClusterSpec spec = t.clusters().get(c);
                String cat = at + ".clusters[" + c + "]";
                String clusterId = required(spec.id(), cat + ".id");
                Money limit = spec.limit() == null ? null : price(spec.limit(), cat + ".limit");
                require(!tenantOfCluster.containsKey(clusterId), cat + ".id: cluster " + clusterId + " is defined twice");
                long maxGpus = spec.maxGpus() == null ? Long.MAX_VALUE / 4 : spec.maxGpus();
                at(cat, () -> {
                    market.addCluster(clusterId, tenantId, maxGpus, limit);
                    return null;
                });
                tenantOfCluster.put(clusterId, tenantId);
                if (spec.block() != null) {
                    PoolId pool = poolOf(spec.block().pool(), cat + ".block.pool");
                    int n = spec.block().nodes() == null ? 1 : spec.block().nodes();
                    require(n >= 0 && n <= MAX_NODES, cat + ".block.nodes: " + n + " is not between 0 and " + MAX_NODES);
                    totalNodes(n, cat + ".block.nodes");
                    for (int k = 1; k <= n; k++) {
                        String nodeId = clusterId + "-block-" + k;
                        market.addNode(nodeId, pool);
                        market.assignBlock(clusterId, nodeId);
                        // the scenario's block is in its cluster from the start
                        market.blockNodeReady(nodeId, START);
                    }
                }
            }
        }
        if (scenario.jobs() != null) {
            for (int i = 0; i < scenario.jobs().size(); i++) {
                Scenario.JobSpec j = scenario.jobs().get(i);
                String at = "jobs[" + i + "]";
                String id = j.id() == null ? "job-" + (i + 1) : j.id();
                addJob(id, j.cluster(), j.pool(), j.gpus(), Durations.parse(j.at() == null ? "0" : j.at(), at + ".at"),
                        Durations.parse(j.duration(), at + ".duration"), j.limit(), j.priority(), at);
            }
        }
        if (scenario.arrivals() != null) {
            for (int i = 0; i < scenario.arrivals().size(); i++) {
                generate(scenario.arrivals().get(i), i);
            }
        }
        if (scenario.failures() != null) {
            for (int i = 0; i < scenario.failures().size(); i++) {
                scheduleFailures(scenario.failures().get(i), "failures[" + i + "]");
            }
        }
        if (scenario.events() != null) {
            for (int i = 0; i < scenario.events().size(); i++) {
                scheduleEvent(scenario.events().get(i), "events[" + i + "]");
            }
        }
    }

    private void addJob(String id, String cluster, String pool, Integer gpus, Duration at, Duration duration,
                        String limit, String priority, String where) {
        require(!jobs.containsKey(id), where + ".id: job " + id + " is defined twice");
        require(jobs.size() < MAX_JOBS, where + ": more than " + MAX_JOBS + " jobs; use fewer arrivals");
        String clusterId = required(cluster, where + ".cluster");
        require(tenantOfCluster.containsKey(clusterId), where + ".cluster: no cluster " + clusterId);
        PoolId poolId = poolOf(pool, where + ".pool");
        require(gpus != null && gpus > 0, where + ".gpus: a job asks for at least one GPU");
        int perNode = market.pool(poolId).gpusPerNode();
        require(gpus < perNode || gpus % perNode == 0, where + ".gpus: " + gpus + " GPUs is neither under one node nor "
                + "whole nodes of " + poolId + " (" + perNode + " GPUs per node)");
        require(duration.compareTo(Duration.ZERO) > 0, where + ".duration: must be longer than zero");
        Money jobLimit = limit == null ? null : price(limit, where + ".limit");
        at(where + ".priority", () -> PriorityClass.fromLabel(priority));
        SimJob job = new SimJob(id, clusterId, tenantOfCluster.get(clusterId), poolId, gpus, duration, jobLimit,
                priority, START.plus(at));
        jobs.put(id, job);
        schedule(job.arrival, "arrive " + id, () -> at(where, () -> fileRequest.file(
                new FileMarketRequest.Command(id, clusterId, poolId.toString(), gpus,
                        jobLimit == null ? null : jobLimit.toString(), priority))));
    }

    private void generate(Scenario.ArrivalSpec a, int index) {
        String where = "arrivals[" + index + "]";
        String name = a.name() == null ? "gen" + (index + 1) : a.name();
        SplittableRandom random = new SplittableRandom(seed() * 1_000_003L + index);
        Duration from = Durations.parse(a.from() == null ? "0" : a.from(), where + ".from");
        Duration until = a.until() == null ? length : Durations.parse(a.until(), where + ".until");
        Duration every = Durations.parse(a.every(), where + ".every");
        require(!every.isZero(), where + ".every: must be longer than zero");
        require(a.gpus() != null && !a.gpus().isEmpty(), where + ".gpus: a list of sizes is required, such as [8, 16]");
        require(a.duration() != null && a.duration().size() == 2,
                where + ".duration: [min, max] is required, such as [30m, 4h]");
        Duration minD = Durations.parse(a.duration().get(0), where + ".duration[0]");
        Duration maxD = Durations.parse(a.duration().get(1), where + ".duration[1]");
        require(maxD.compareTo(minD) >= 0 && !minD.isZero(), where + ".duration: need 0 < min <= max");
        Money minL = null;
        Money maxL = null;
        if (a.limit() != null) {
            require(a.limit().size() == 2, where + ".limit: [min, max] is required, such as [\"1.50\", \"4.00\"]");
            minL = price(a.limit().get(0), where + ".limit[0]");
            maxL = price(a.limit().get(1), where + ".limit[1]");
            require(maxL.compareTo(minL) >= 0, where + ".limit: need min <= max");
        }
        double meanSeconds = every.getSeconds();
        Duration t = from;
        int n = 0;
        while (true) {
            double gap = -Math.log(1.0 - random.nextDouble()) * meanSeconds;
            t = t.plusSeconds(Math.max(1, Math.round(gap)));
            if (t.compareTo(until) >= 0 || t.compareTo(length) > 0) {
                break;
            }
            int gpus = a.gpus().get(random.nextInt(a.gpus().size()));
            long span = maxD.getSeconds() - minD.getSeconds();
            Duration d = minD.plusSeconds(span == 0 ? 0 : random.nextLong(span + 1));
            String limit = null;
            if (minL != null) {
                long cents = (maxL.micros() - minL.micros()) / 10_000;
                limit = Money.ofMicros(minL.micros() + (cents == 0 ? 0 : random.nextLong(cents + 1)) * 10_000).toString();
            }
            String priority = a.priority() == null || a.priority().isEmpty() ? null
                    : a.priority().get(random.nextInt(a.priority().size()));
            n++;
            addJob(name + "-" + n, a.cluster(), a.pool(), gpus, t, d, limit, priority, where);
        }
    }

    private void scheduleFailures(Scenario.FailureSpec f, String where) {
        PoolId pool = poolOf(f.pool(), where + ".pool");
        SplittableRandom random = new SplittableRandom(seed() * 7_919L + where.hashCode());
        Duration from = Durations.parse(f.from() == null ? "0" : f.from(), where + ".from");
        Duration until = f.until() == null ? length : Durations.parse(f.until(), where + ".until");
        Duration every = Durations.parse(f.every(), where + ".every");
        Duration repair = Durations.parse(f.repairAfter(), where + ".repairAfter");
        require(!every.isZero(), where + ".every: must be longer than zero");
        Duration t = from;
        while (true) {
            t = t.plusSeconds(Math.max(1, Math.round(-Math.log(1.0 - random.nextDouble()) * every.getSeconds())));
            if (t.compareTo(until) >= 0 || t.compareTo(length) > 0) {
                break;
            }
            schedule(START.plus(t), "random failure in " + pool, () -> fail(pool, 1, repair, false));
        }
    }

    private void scheduleEvent(Scenario.EventSpec e, String where) {
        Instant at = START.plus(Durations.parse(e.at(), where + ".at"));
        int set = (e.setReserve() != null ? 1 : 0) + (e.setClusterLimit() != null ? 1 : 0)
                + (e.setJobLimit() != null ? 1 : 0) + (e.addNodes() != null ? 1 : 0) + (e.removeNodes() != null ? 1 : 0)
                + (e.failNodes() != null ? 1 : 0) + (e.credit() != null ? 1 : 0);
        require(set == 1, where + ": exactly one of setReserve, setClusterLimit, setJobLimit, addNodes, removeNodes, "
                + "failNodes, credit is required");
        if (e.setReserve() != null) {
            PoolId pool = poolOf(e.setReserve().pool(), where + ".setReserve.pool");
            Money price = price(e.setReserve().price(), where + ".setReserve.price");
            schedule(at, where, () -> changeReserve.change(
                    new ChangeReservePrice.Command(pool.toString(), price.toString())));
        } else if (e.setClusterLimit() != null) {
            String cluster = required(e.setClusterLimit().cluster(), where + ".setClusterLimit.cluster");
            require(tenantOfCluster.containsKey(cluster), where + ".setClusterLimit.cluster: no cluster " + cluster);
            String limit = e.setClusterLimit().limit();
            if (limit != null) {
                price(limit, where + ".setClusterLimit.limit");
            }
            schedule(at, where, () -> limitWrite(where, () -> {
                if (limit == null) {
                    withdrawLimit.withdraw(new WithdrawLimitPrice.Command(cluster, null));
                } else {
                    setLimit.set(new SetLimitPrice.Command(cluster, null, limit));
                }
            }));
        } else if (e.setJobLimit() != null) {
            String jobId = required(e.setJobLimit().job(), where + ".setJobLimit.job");
            String limit = e.setJobLimit().limit();
            if (limit != null) {
                price(limit, where + ".setJobLimit.limit");
            }
            schedule(at, where, () -> {
                SimJob job = jobs.get(jobId);
                if (job == null) {
                    throw new ScenarioException(where + ".setJobLimit.job: no job " + jobId);
                }
                if (!repository.load().hasOpenRequest(jobId)) {
                    return;
                }
                limitWrite(where, () -> {
                    if (limit == null) {
                        withdrawLimit.withdraw(new WithdrawLimitPrice.Command(job.clusterId, jobId));
                    } else {
                        setLimit.set(new SetLimitPrice.Command(job.clusterId, jobId, limit));
                    }
                });
            });
        } else if (e.addNodes() != null) {
            PoolId pool = poolOf(e.addNodes().pool(), where + ".addNodes.pool");
            int count = count(e.addNodes().count(), where + ".addNodes.count");
            schedule(at, where, () -> addNodes(pool, count, where + ".addNodes.count"));
        } else if (e.removeNodes() != null) {
            PoolId pool = poolOf(e.removeNodes().pool(), where + ".removeNodes.pool");
            int count = count(e.removeNodes().count(), where + ".removeNodes.count");
            schedule(at, where, () -> removeNodes(pool, count));
        } else if (e.failNodes() != null) {
            PoolId pool = poolOf(e.failNodes().pool(), where + ".failNodes.pool");
            int count = count(e.failNodes().count(), where + ".failNodes.count");
            Duration repair = e.failNodes().repairAfter() == null ? null
                    : Durations.parse(e.failNodes().repairAfter(), where + ".failNodes.repairAfter");
            schedule(at, where, () -> fail(pool, count, repair, true));
        } else {
            String tenant = required(e.credit().tenant(), where + ".credit.tenant");
            require(initialCredits.containsKey(tenant), where + ".credit.tenant: no tenant " + tenant);
            Money amount = at(where + ".credit.amount", () -> Money.parse(e.credit().amount()));
            schedule(at, where, () -> repository.load().credit(tenant, amount));
        }
    }

    /** A refused limit write (bid-too-low) is what a tenant would see; the simulation records it and goes on. */
    private void limitWrite(String where, Runnable write) {
        try {
            write.run();
        } catch (DomainException refused) {
            refusedWrites.add(clock.instant() + " " + where + ": " + refused.getMessage());
        }
    }

    final List<String> refusedWrites = new ArrayList<>();

    private void addNodes(PoolId pool, int count, String where) {
        totalNodes(count, where);
        for (int k = 0; k < count; k++) {
            int n = nodeCounter.merge(pool, 1, Integer::sum);
            market.addNode(String.format("%s-%s-n%03d", pool.site(), pool.nodeClass(), n), pool);
        }
    }

    /**
     * The operator removes free nodes first (highest id first), then granted ones: a gang on a removed
     * node is revoked and its job requeued.
     */
    private void removeNodes(PoolId pool, int count) {
        List<Node> candidates = new ArrayList<>();
        for (Node node : market.nodes(pool)) {
            if (node.blockClusterId() == null) {
                candidates.add(node);
            }
        }
        candidates.sort(Comparator.comparing((Node n) -> n.grant() != null).thenComparing(Node::id,
                Comparator.reverseOrder()));
        for (int k = 0; k < count && k < candidates.size(); k++) {
            reportNodeLeft.report(new ReportNodeLeft.Command(candidates.get(k).id()));
            nodesHeld--;
        }
    }

    /** Health checks cordon nodes in service: granted ones first when {@code grantedFirst}, else any at random. */
    private void fail(PoolId pool, int count, Duration repairAfter, boolean grantedFirst) {
        List<Node> candidates = new ArrayList<>();
        for (Node node : market.nodes(pool)) {
            if (node.inService() && node.blockClusterId() == null) {
                candidates.add(node);
            }
        }
        if (grantedFirst) {
            candidates.sort(Comparator.comparing((Node n) -> n.grant() == null).thenComparing(Node::id));
        } else {
            for (int i = candidates.size() - 1; i > 0; i--) {
                int j = failureRandom.nextInt(i + 1);
                Node tmp = candidates.get(i);
                candidates.set(i, candidates.get(j));
                candidates.set(j, tmp);
            }
        }
        for (int k = 0; k < count && k < candidates.size(); k++) {
            String nodeId = candidates.get(k).id();
            reportOutOfService.report(new ReportNodeOutOfService.Command(nodeId));
            failures++;
            if (repairAfter != null) {
                schedule(clock.instant().plus(repairAfter), "repair " + nodeId,
                        () -> reportNodeBack.report(new ReportNodeBack.Command(nodeId)));
            }
        }
    }

    int failures;

    private void schedule(Instant at, String what, Runnable run) {
        actions.add(new Action(at, ++seq, what, run));
    }

    private PoolId poolOf(String text, String where) {
        PoolId id = at(where, () -> PoolId.parse(required(text, where)));
        require(nodeCounter.containsKey(id), where + ": no pool " + id + " in pools");
        return id;
    }

    private static int count(Integer n, String where) {
        if (n == null || n < 1) {
            throw new ScenarioException(where + ": a count of at least one is required");
        }
        if (n > MAX_NODES) {
            throw new ScenarioException(where + ": " + n + " is too many: at most " + MAX_NODES);
        }
        return n;
    }

    private int nodesHeld;

    private void totalNodes(int more, String where) {
        nodesHeld += more;
        require(nodesHeld <= MAX_TOTAL_NODES, where + ": the scenario would hold more than " + MAX_TOTAL_NODES
                + " nodes at once");
    }

    /** A price per GPU-hour: a decimal string of at most six decimals, at most the market's maximum. */
    private static Money price(String text, String where) {
        Money price = at(where, () -> Money.parse(text));
        require(price.compareTo(Money.MAX_PRICE) <= 0, where + ": " + text + " is too large: a price is at most "
                + Money.MAX_PRICE + " USD per GPU-hour");
        return price;
    }

    private static String required(String value, String where) {
        if (value == null || value.isBlank()) {
            throw new ScenarioException(where + ": is required");
        }
        return value;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new ScenarioException(message);
        }
    }

    private static <T> T at(String where, Supplier<T> step) {
        try {
            return step.get();
        } catch (DomainException e) {
            throw new ScenarioException(where + ": " + e.getMessage(), e);
        }
    }
}
