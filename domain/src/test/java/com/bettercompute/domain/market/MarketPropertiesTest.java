package com.bettercompute.domain.market;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.domain.DomainException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Combinators;

/** The market's invariants over random sequences of filings, limits, reserves, failures and ticks. */
class MarketPropertiesTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final List<PoolId> POOLS = List.of(new PoolId("s1", "h100-8x"), new PoolId("s1", "a100-4x"));
    private static final String[] LIMITS = {null, "0", "0.50", "1.00", "1.50", "2.00", "2.50", "3.00", "4.00", "6.00"};

    sealed interface Op {
    }

    record File(int job, int cluster, int pool, int nodes, int limit) implements Op {
    }

    record End(int job) implements Op {
    }

    record JobLimit(int job, int limit) implements Op {
    }

    record ClusterLimit(int cluster, int limit) implements Op {
    }

    record Reserve(int pool, int limit) implements Op {
    }

    record Fail(int node) implements Op {
    }

    record Back(int node) implements Op {
    }

    /** Time passes; with {@code ready}, every node granted so far reports ready at the tick. */
    record Tick(int seconds, boolean ready) implements Op {
    }

    record Ready(int node) implements Op {
    }

    record Remove(int node) implements Op {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> file = Combinators.combine(Arbitraries.integers().between(0, 14), Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 1), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(0, LIMITS.length - 1)).as(File::new);
        Arbitrary<Op> end = Arbitraries.integers().between(0, 14).map(End::new);
        Arbitrary<Op> jobLimit = Combinators.combine(Arbitraries.integers().between(0, 14),
                Arbitraries.integers().between(0, LIMITS.length - 1)).as(JobLimit::new);
        Arbitrary<Op> clusterLimit = Combinators.combine(Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, LIMITS.length - 1)).as(ClusterLimit::new);
        Arbitrary<Op> reserve = Combinators.combine(Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(2, 6)).as(Reserve::new);
        Arbitrary<Op> fail = Arbitraries.integers().between(0, 9).map(Fail::new);
        Arbitrary<Op> back = Arbitraries.integers().between(0, 9).map(Back::new);
        Arbitrary<Op> tick = Combinators.combine(Arbitraries.of(5, 30, 59, 60, 600, 3600, 7200),
                Arbitraries.of(true, true, false)).as(Tick::new);
        Arbitrary<Op> ready = Arbitraries.integers().between(0, 9).map(Ready::new);
        Arbitrary<Op> remove = Arbitraries.integers().between(0, 9).map(Remove::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, file), net.jqwik.api.Tuple.of(2, end), net.jqwik.api.Tuple.of(2, jobLimit),
                net.jqwik.api.Tuple.of(1, clusterLimit), net.jqwik.api.Tuple.of(1, reserve),
                net.jqwik.api.Tuple.of(1, fail), net.jqwik.api.Tuple.of(1, back), net.jqwik.api.Tuple.of(6, tick),
                net.jqwik.api.Tuple.of(1, ready), net.jqwik.api.Tuple.of(1, remove))
                .list().ofMinSize(5).ofMaxSize(80);
    }

    /** Runs the ops, checking the invariants after every tick; returns every tick's outcome. */
    static List<TickOutcome> run(List<Op> ops, boolean check) {
        return run(ops, check, -1, (m, o) -> { });
    }

    static List<TickOutcome> run(List<Op> ops, boolean check, int restoreAt) {
        return run(ops, check, restoreAt, (m, o) -> { });
    }

    /** The same, with the market saved as a snapshot and restored from it before op {@code restoreAt}. */
    static List<TickOutcome> run(List<Op> ops, boolean check, int restoreAt,
                                 java.util.function.BiConsumer<Market, TickOutcome> afterTick) {
        Market m = new Market();
        m.addPool(POOLS.get(0), 8, Money.parse("1.00"));
        m.addPool(POOLS.get(1), 4, Money.parse("1.00"));
        for (int i = 0; i < 10; i++) {
            m.addNode("n" + i, POOLS.get(i % 2));
        }
        m.addTenant("t0", Money.usd(5_000));
        m.addTenant("t1", Money.usd(400));
        m.addTenant("t2", Money.usd(50));
        for (int c = 0; c < 4; c++) {
            m.addCluster("c" + c, "t" + (c % 3), c == 3 ? 16 : 1_000, Money.parse(LIMITS[5 + c]));
        }
        Instant now = T0;
        List<TickOutcome> outcomes = new ArrayList<>();
        Map<String, java.util.TreeMap<Instant, Long>> limitHistory = new HashMap<>();
        Set<String> replacementGrants = new HashSet<>();
        for (int index = 0; index < ops.size(); index++) {
            Op op = ops.get(index);
            if (index == restoreAt) {
                MarketSnapshot saved = m.snapshot();
                m = Market.restore(saved);
                assertThat(m.snapshot()).isEqualTo(saved);
            }
            try {
                if (op instanceof File f) {
                    PoolId pool = POOLS.get(f.pool());
                    int perNode = m.pool(pool).gpusPerNode();
                    m.file(new JobDemand("j" + f.job(), "c" + f.cluster(), pool, f.nodes() * perNode,
                            money(f.limit()), PriorityClass.NONE), now);
                } else if (op instanceof End e) {
                    m.endJob("j" + e.job(), now);
                } else if (op instanceof JobLimit l) {
                    m.setJobLimit("j" + l.job(), money(l.limit()));
                } else if (op instanceof ClusterLimit l) {
                    m.setClusterLimit("c" + l.cluster(), money(l.limit()));
                } else if (op instanceof Reserve r) {
                    m.changeReserve(POOLS.get(r.pool()), Money.parse(LIMITS[r.limit()]));
                } else if (op instanceof Fail f) {
                    m.nodeOutOfService("n" + f.node(), now);
                } else if (op instanceof Back b) {
                    m.nodeBack("n" + b.node(), now);
                } else if (op instanceof Ready r) {
                    m.nodeReady("n" + r.node(), now);
                } else if (op instanceof Remove r) {
                    m.removeNode("n" + r.node(), now);
                } else if (op instanceof Tick t) {
                    now = now.plusSeconds(t.seconds());
                    Map<String, long[]> windowsBefore = windows(m);
                    Map<String, Instant> drainingBefore = draining(m);
                    TickOutcome o = t.ready() ? Ticks.tickReady(m, now) : m.tick(now);
                    outcomes.add(o);
                    afterTick.accept(m, o);
                    if (check) {
                        checkInvariants(m, o, windowsBefore, limitHistory, replacementGrants);
                        checkDrainAndBalance(m, o, drainingBefore);
                    }
                }
            } catch (DomainException refused) {
                // a refused call (no such job, job already open) changes nothing
            }
        }
        return outcomes;
    }

    private static Money money(int limit) {
        return LIMITS[limit] == null ? null : Money.parse(LIMITS[limit]);
    }

    /** Per holding request before the tick: {protectedUntil epoch second, startLimit, limit in force}. */
    private static Map<String, long[]> windows(Market m) {
        Map<String, long[]> out = new HashMap<>();
        for (MarketRequest r : m.openRequests()) {
            if (r.phase().holds() && r.protectedUntil() != null) {
                out.put(r.id(), new long[] {r.protectedUntil().getEpochSecond(), r.startLimit().micros(),
                        r.effectiveLimit().micros()});
            }
        }
        return out;
    }

    private static Map<String, Instant> draining(Market m) {
        Map<String, Instant> out = new HashMap<>();
        for (PoolId pool : POOLS) {
            for (Node n : m.nodes(pool)) {
                if (n.drainingUntil() != null) {
                    out.put(n.id(), n.drainingUntil());
                }
            }
        }
        return out;
    }

    /** No node is granted while it drains; a node reclaimed at once drains; no balance goes below zero. */
    private static void checkDrainAndBalance(Market m, TickOutcome o, Map<String, Instant> drainingBefore) {
        Map<String, Instant> drainingNow = draining(m);
        for (MarketEvent e : o.events()) {
            if (e instanceof MarketEvent.NodeGranted g) {
                Instant until = drainingBefore.get(g.nodeId());
                assertThat(until == null || !g.at().isBefore(until))
                        .as("node %s granted while it drains until %s", g.nodeId(), until).isTrue();
                assertThat(drainingNow).doesNotContainKey(g.nodeId());
            }
            if (e instanceof MarketEvent.GangReclaimedAtOnce a) {
                for (String nodeId : a.nodeIds()) {
                    if (drainingNow.containsKey(nodeId)) {
                        assertThat(drainingNow.get(nodeId)).isEqualTo(a.at().plusSeconds(60));
                    }
                }
            }
        }
        for (String t : List.of("t0", "t1", "t2")) {
            assertThat(m.tenant(t).balanceMicros()).as("balance of %s", t).isNotNegative();
        }
        assertThat(o.failures()).isEmpty();
    }

    private static void checkInvariants(Market m, TickOutcome o, Map<String, long[]> windowsBefore,
                                        Map<String, java.util.TreeMap<Instant, Long>> limitHistory,
                                        Set<String> replacementGrants) {
        // a node is granted to at most one request, and capacity is never exceeded
        Set<String> granted = new HashSet<>();
        Map<PoolId, Integer> perPool = new HashMap<>();
        for (NodeGrant g : m.liveGrants()) {
            assertThat(granted.add(g.nodeId())).as("node %s granted twice", g.nodeId()).isTrue();
            Node node = m.node(g.nodeId());
            assertThat(node.inService()).isTrue();
            assertThat(node.blockClusterId()).isNull();
            perPool.merge(node.pool(), 1, Integer::sum);
        }
        Set<String> inRequests = new HashSet<>();
        for (MarketRequest r : m.openRequests()) {
            for (String id : r.grantedNodeIds()) {
                assertThat(inRequests.add(id)).as("node %s in two gangs", id).isTrue();
            }
            // gangs all or nothing: never more than asked, and an admitted gang is short only while no
            // supply is free (its other nodes are still under another gang's notice, or being replaced)
            assertThat(r.grantedNodes()).isLessThanOrEqualTo(r.nodes());
            if (r.phase() == RequestPhase.ADMITTED && r.grantedNodes() < r.nodes()) {
                assertThat(m.freeNodes(r.pool())).as("partial gang %s while nodes are free", r.id()).isZero();
            }
            if (!r.phase().holds()) {
                assertThat(r.grantedNodes()).isZero();
            }
        }
        for (PoolTick t : o.feed()) {
            assertThat(perPool.getOrDefault(t.pool(), 0)).isLessThanOrEqualTo(t.supply()).isEqualTo(t.granted());
            assertThat(t.free() + t.granted()).isEqualTo(t.supply());
            if (t.price() != null) {
                assertThat(t.price()).isGreaterThanOrEqualTo(t.reserve());
            }
        }
        // protected grants are never reclaimed, but for a balance that ran out (a window protects from being
        // outbid, not from running without credit: MARKET.md's "at once ... its balance ran out")
        for (MarketEvent e : o.events()) {
            String reclaimed = e instanceof MarketEvent.PreemptionNoticed n ? n.requestId()
                    : e instanceof MarketEvent.GangReclaimedAtOnce a && a.cause() != ReclaimCause.BALANCE_RAN_OUT
                    ? a.requestId() : null;
            if (reclaimed != null && windowsBefore.containsKey(reclaimed)) {
                long[] w = windowsBefore.get(reclaimed);
                boolean inWindow = o.at().getEpochSecond() < w[0];
                assertThat(inWindow && w[2] >= w[1])
                        .as("protected gang %s reclaimed", reclaimed).isFalse();
            }
            if (e instanceof MarketEvent.NodeGranted g && g.replacement()) {
                replacementGrants.add(g.grantId());
            }
        }
        // nobody pays above its limit (a replacement inherits the cluster's locked rate by design): each
        // accrual is decided at a tick at the gang's limit of that tick, and a ledger entry keeps one rate
        // over the ticks it spans, so its rate is at most every limit decided within it
        for (Charge c : o.charges()) {
            java.util.TreeMap<Instant, Long> history = limitHistory.get(c.grantId());
            if (history == null || replacementGrants.contains(c.grantId())) {
                continue;
            }
            Instant first = history.floorKey(c.from());
            for (long limit : history.subMap(first == null ? c.from() : first, true, c.to(), false).values()) {
                assertThat(c.rate().micros()).as("charge %s above limit", c).isLessThanOrEqualTo(limit);
            }
        }
        for (NodeGrant g : m.liveGrants()) {
            if (g.requestId() != null) {
                MarketRequest r = m.openRequests().stream().filter(x -> x.id().equals(g.requestId())).findFirst()
                        .orElseThrow();
                limitHistory.computeIfAbsent(g.id(), k -> new java.util.TreeMap<>())
                        .put(o.at(), r.effectiveLimit().micros());
            }
        }
    }

    @Property(tries = 300)
    void invariantsHoldAfterEveryTick(@ForAll("ops") List<Op> ops) {
        run(ops, true);
    }

    @Property(tries = 100)
    void replayingTheSameInputsGivesTheSameOutcome(@ForAll("ops") List<Op> ops) {
        assertThat(run(ops, false)).isEqualTo(run(ops, false));
    }

    @Property(tries = 100)
    void aMarketRestoredFromItsSnapshotDecidesAsTheOriginal(@ForAll("ops") List<Op> ops,
                                                          @ForAll @net.jqwik.api.constraints.IntRange(max = 80) int at) {
        assertThat(run(ops, false, at)).isEqualTo(run(ops, false));
    }

    @Property(tries = 100)
    void aReplayedTickBillsNothingTwice(@ForAll("ops") List<Op> ops) {
        List<Op> doubled = new ArrayList<>();
        for (Op op : ops) {
            doubled.add(op);
            if (op instanceof Tick t) {
                doubled.add(new Tick(0, t.ready()));
            }
        }
        Set<Charge.Key> keys = new HashSet<>();
        long[] chargedAfterLastTick = {-1};
        Instant[] lastTickAt = {null};
        run(doubled, false, -1, (m, o) -> {
            long charged = 0;
            for (String t : List.of("t0", "t1", "t2")) {
                charged += m.tenant(t).charged().micros();
            }
            if (o.at().equals(lastTickAt[0])) {
                assertThat(charged).as("a replayed tick charges nothing").isEqualTo(chargedAfterLastTick[0]);
            }
            for (Charge c : o.charges()) {
                assertThat(keys.add(c.key())).as("charge key %s twice", c.key()).isTrue();
                assertThat(c.to()).isBeforeOrEqualTo(o.at());
            }
            chargedAfterLastTick[0] = charged;
            lastTickAt[0] = o.at();
        });
    }

    /**
     * A store that keeps the requests, grants and nodes of the first snapshot and then only applies
     * {@link Market#changes()} after every tick holds what the whole snapshot holds: its requests and nodes
     * exactly, its grants but for billing cursors that moved at their open entry's rate (recorded only when
     * an entry opens or closes), and a market restored from it equals the market itself. No change goes
     * unrecorded, and a grant reported as billed differs from its stored state in its billing cursor only.
     */
    @Property(tries = 200)
    void theRecordedChangesKeepAStoreOfRequestsGrantsAndNodesEqualToTheWholeSnapshot(@ForAll("ops") List<Op> ops) {
        List<Op> ending = new ArrayList<>(ops);
        ending.add(new Tick(0, false));
        Map<Long, MarketSnapshot.RequestState> stored = new java.util.TreeMap<>();
        Map<String, MarketSnapshot.GrantState> storedGrants = new java.util.LinkedHashMap<>();
        Map<String, MarketChanges.PoolNode> storedNodes = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            // the nodes of run's market as it is restored (before any op)
            storedNodes.put("n" + i, new MarketChanges.PoolNode(POOLS.get(i % 2),
                    new MarketSnapshot.NodeState("n" + i, true, null, 0, null, null, null)));
        }
        int[] checked = {0};
        run(ending, false, 0, (m, o) -> {
            MarketChanges changes = m.changes();
            for (MarketSnapshot.GrantState g : changes.billed()) {
                MarketSnapshot.GrantState old = storedGrants.get(g.id());
                assertThat(old).as("a grant billed alone was stored before").isNotNull();
                assertThat(withBillingOf(old, g)).as("%s: billing alone moved", g.id()).isEqualTo(g);
                storedGrants.put(g.id(), g);
            }
            Set<String> changedGrants = new HashSet<>();
            changes.grants().forEach(g -> changedGrants.add(g.id()));
            assertThat(changes.billed()).as("billed alone, not changed otherwise")
                    .noneMatch(g -> changedGrants.contains(g.id()));
            changes.grants().forEach(g -> storedGrants.put(g.id(), g));
            changes.grantsGone().forEach(storedGrants::remove);
            changes.nodesGone().forEach(storedNodes::remove);
            changes.nodes().forEach(n -> storedNodes.put(n.node().id(), n));
            Set<String> seen = new HashSet<>();
            changes.requests().forEach(r -> seen.add(r.id()));
            changes.gone().forEach(g -> seen.add(g.id()));
            for (MarketChanges.Gone gone : changes.gone()) {
                stored.remove(gone.sequence());
                if (gone.revoked()) {
                    String job = gone.id().split("#")[0];
                    int attempt = gone.id().contains("#") ? Integer.parseInt(gone.id().split("#")[1]) : 1;
                    assertThat(seen).as("a revoked request's job goes on as a later attempt").contains(job + "#" + (attempt + 1));
                }
            }
            changes.requests().forEach(r -> stored.put(r.sequence(), r));
            m.clearChanges();
            MarketSnapshot whole = m.snapshot();
            assertThat(List.copyOf(stored.values())).isEqualTo(whole.requests());
            Map<String, MarketSnapshot.GrantState> wholeGrants = new HashMap<>();
            whole.grants().forEach(g -> wholeGrants.put(g.id(), g));
            assertThat(storedGrants.keySet()).isEqualTo(wholeGrants.keySet());
            storedGrants.forEach((id, g) -> assertThat(withBillingOf(g, wholeGrants.get(id)))
                    .as("%s: only its billing cursor is behind", id).isEqualTo(wholeGrants.get(id)));
            Map<String, MarketChanges.PoolNode> wholeNodes = new HashMap<>();
            List<MarketSnapshot.PoolState> bare = new ArrayList<>();
            List<MarketSnapshot.PoolState> storedPools = new ArrayList<>();
            for (MarketSnapshot.PoolState p : whole.pools()) {
                p.nodes().forEach(n -> wholeNodes.put(n.id(), new MarketChanges.PoolNode(p.id(), n)));
                bare.add(new MarketSnapshot.PoolState(p.id(), p.gpusPerNode(), p.reserve(), p.lastPrice(), List.of(),
                        p.reclaimingIds(), p.drainingIds()));
                storedPools.add(new MarketSnapshot.PoolState(p.id(), p.gpusPerNode(), p.reserve(), p.lastPrice(),
                        storedNodes.values().stream().filter(n -> n.pool().equals(p.id())).map(MarketChanges.PoolNode::node)
                                .sorted(java.util.Comparator.comparing(MarketSnapshot.NodeState::id)).toList(),
                        p.reclaimingIds(), p.drainingIds()));
            }
            assertThat(storedNodes).isEqualTo(wholeNodes);
            MarketSnapshot rest = changes.rest();
            assertThat(rest).isEqualTo(new MarketSnapshot(whole.timings(), whole.lastTick(), whole.sequence(),
                    whole.grantSequence(), List.copyOf(bare), whole.tenants(), whole.clusters(), List.of(), List.of(),
                    whole.idleOrder(), whole.betweenTicks()));
            MarketSnapshot kept = new MarketSnapshot(rest.timings(), rest.lastTick(), rest.sequence(),
                    rest.grantSequence(), storedPools, rest.tenants(), rest.clusters(), List.copyOf(stored.values()),
                    List.copyOf(storedGrants.values()), rest.idleOrder(), rest.betweenTicks());
            // the store's grants come in the order their changes were recorded (by id within one), as a repository's
            assertThat(byGrantId(Market.restore(kept).snapshot())).as("restored from the store").isEqualTo(byGrantId(whole));
            MarketChanges cleared = m.changes();
            assertThat(cleared.requests()).as("cleared").isEmpty();
            assertThat(cleared.grants()).as("cleared").isEmpty();
            assertThat(cleared.billed()).as("cleared").isEmpty();
            assertThat(cleared.nodes()).as("cleared (but nodes holding a lost grant)")
                    .allMatch(n -> n.node().lostGrant() != null);
            checked[0]++;
        });
        assertThat(checked[0]).isPositive();
    }

    /** {@code s} with its grants in id order. */
    private static MarketSnapshot byGrantId(MarketSnapshot s) {
        return new MarketSnapshot(s.timings(), s.lastTick(), s.sequence(), s.grantSequence(), s.pools(), s.tenants(),
                s.clusters(), s.requests(), s.grants().stream()
                .sorted(java.util.Comparator.comparing(MarketSnapshot.GrantState::id)).toList(),
                s.idleOrder(), s.betweenTicks());
    }

    /** {@code g} with the billing cursor of {@code billed}: how far billed, the open ledger entry, the carry. */
    private static MarketSnapshot.GrantState withBillingOf(MarketSnapshot.GrantState g, MarketSnapshot.GrantState billed) {
        return new MarketSnapshot.GrantState(g.id(), g.nodeId(), g.pool(), g.clusterId(), g.gpus(), g.lockedRate(),
                g.grantedAt(), g.readyAt(), g.holdUntil(), g.protectedUntil(), g.replacement(), g.requestId(),
                g.idleSince(), g.marketRate(), g.lockedInForce(), billed.billedUntil(), g.endsAt(), billed.entryFrom(),
                billed.entryRate(), billed.entryLocked(), billed.entryAccrued(), billed.carry());
    }
}
