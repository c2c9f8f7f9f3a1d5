package com.bettercompute.domain.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.domain.DomainException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The tick end to end on small markets: who gets nodes, at what price, who is reclaimed and how. */
class MarketTickTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final PoolId POOL = new PoolId("us-east", "h100-8x");

    private Market market;

    @BeforeEach
    void setUp() {
        market = new Market();
        market.addPool(POOL, 8, Money.parse("1.00"));
        for (int i = 1; i <= 4; i++) {
            market.addNode("n" + i, POOL);
        }
        market.addTenant("acme", Money.usd(100_000));
        market.addTenant("beta", Money.usd(100_000));
        market.addCluster("acme-c", "acme", 1_000, Money.parse("2.00"));
        market.addCluster("beta-c", "beta", 1_000, Money.parse("3.00"));
    }

    private static Instant at(Duration d) {
        return T0.plus(d);
    }

    private MarketRequest file(String job, String cluster, int nodes, String limit) {
        return market.file(new JobDemand(job, cluster, POOL, nodes * 8, limit == null ? null : Money.parse(limit),
                PriorityClass.NONE), T0);
    }

    private static <E extends MarketEvent> List<E> events(TickOutcome o, Class<E> type) {
        return o.events().stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void aRequestReadsPendingUntilTheFirstTickThenTheHigherLimitWinsAtTheLowestAcceptedLimit() {
        MarketRequest a = file("a", "acme-c", 2, null);   // 2.00 from its cluster
        MarketRequest b = file("b", "beta-c", 2, null);   // 3.00
        MarketRequest c = file("c", "acme-c", 2, "1.50");
        assertThat(a.reason()).isEqualTo(Reason.PENDING);

        TickOutcome o = Ticks.tickReady(market, T0);

        assertThat(b.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(c.reason()).isEqualTo(Reason.OUTBID);
        PoolTick feed = o.feed().get(0);
        assertThat(feed.price()).isEqualTo(Money.parse("2.00"));
        assertThat(feed).extracting(PoolTick::supply, PoolTick::free, PoolTick::demand, PoolTick::granted)
                .containsExactly(4, 0, 6, 4);
        assertThat(a.lockedRate()).isEqualTo(Money.parse("2.00"));
        assertThat(b.lockedRate()).isEqualTo(Money.parse("2.00"));
        assertThat(a.reason()).isEqualTo(Reason.PROVISIONED);
        assertThat(events(o, MarketEvent.GangProvisioned.class)).hasSize(2);
    }

    @Test
    void theTicksPriceIsNullWhenNothingClearsAndZeroIsARealZero() {
        MarketRequest a = file("a", "acme-c", 1, "0");
        TickOutcome o = Ticks.tickReady(market, T0);
        assertThat(o.feed().get(0).price()).isNull();
        assertThat(a.reason()).isEqualTo(Reason.BID_TOO_LOW);
        assertThat(market.freeNodes(POOL)).isEqualTo(4);
    }

    @Test
    void theReserveFloorsThePrice() {
        market.changeReserve(POOL, Money.parse("2.50"));
        file("b", "beta-c", 1, null);
        MarketRequest a = file("a", "acme-c", 1, null);
        TickOutcome o = Ticks.tickReady(market, T0);
        assertThat(o.feed().get(0).price()).isEqualTo(Money.parse("3.00"));
        assertThat(a.reason()).isEqualTo(Reason.BID_TOO_LOW);
    }

    @Test
    void aGangThatDoesNotFitIsSkippedAndASmallerOneBehindItTakesTheRest() {
        MarketRequest big = file("big", "beta-c", 3, "5.00");
        MarketRequest mid = file("mid", "beta-c", 2, "4.00");
        MarketRequest small = file("small", "acme-c", 1, "2.00");
        Ticks.tickReady(market, T0);
        assertThat(big.grantedNodes()).isEqualTo(3);
        assertThat(mid.grantedNodes()).isZero();
        assertThat(mid.reason()).isEqualTo(Reason.OUTBID);
        assertThat(small.grantedNodes()).isEqualTo(1);
        assertThat(market.lastPrice(POOL)).isEqualTo(Money.parse("2.00"));
    }

    @Test
    void aRunningGangOutsideItsWindowIsOutbidWithOneMinutesNoticeThenRevokedAtTheDeadline() {
        MarketRequest a = file("a", "acme-c", 4, null);
        Ticks.tickReady(market, T0);
        assertThat(a.grantedNodes()).isEqualTo(4);

        Instant later = at(Duration.ofHours(2).plusMinutes(1));
        MarketRequest b = market.file(new JobDemand("b", "beta-c", POOL, 16, null, PriorityClass.NONE), later);
        TickOutcome o = Ticks.tickReady(market, later);

        MarketEvent.PreemptionNoticed notice = events(o, MarketEvent.PreemptionNoticed.class).get(0);
        assertThat(notice.requestId()).isEqualTo("a");
        assertThat(notice.deadline()).isEqualTo(later.plusSeconds(60));
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);
        assertThat(a.reason()).isEqualTo(Reason.MARKET_PREEMPTION);
        assertThat(b.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(b.grantedNodes()).isZero();
        assertThat(b.reason()).isEqualTo(Reason.PROVISIONING);

        TickOutcome atDeadline = Ticks.tickReady(market, later.plusSeconds(60));
        assertThat(events(atDeadline, MarketEvent.GangRevoked.class)).extracting(MarketEvent.GangRevoked::requeuedAs)
                .containsExactly("a#2");
        assertThat(b.grantedNodes()).isEqualTo(2);
        assertThat(b.lockedRate()).as("a did not fit after b, so b's limit is the lowest accepted")
                .isEqualTo(Money.parse("3.00"));
        assertThat(market.openRequest("a").reason()).isEqualTo(Reason.OUTBID);
    }

    /** The ways a running request leaves the market. */
    enum Leaving { NOTICE_RAN_OUT, RECLAIMED_AT_ONCE, NODE_LEFT, JOB_ENDED }

    @ParameterizedTest
    @EnumSource(Leaving.class)
    void aRequestThatLeavesEndsAtTheInstantTheMarketDecidedItWhichIsWhenItsSuccessorWasFiled(Leaving how) {
        file("a", "acme-c", 2, null);
        Ticks.tickReady(market, T0);
        Market live = Market.restore(market.snapshot());   // records what leaves, as a store reads it
        Instant after = at(Duration.ofHours(2).plusMinutes(1));
        Instant decided = after;
        switch (how) {
            case NOTICE_RAN_OUT -> {
                live.file(new JobDemand("b", "beta-c", POOL, 32, null, PriorityClass.NONE), after);
                Ticks.tickReady(live, after);
                decided = after.plusSeconds(60);
                // the tick that finds the notice run out comes late, as on a loaded machine
                Ticks.tickReady(live, decided.plusSeconds(7));
            }
            case RECLAIMED_AT_ONCE -> {
                live.setClusterLimit("acme-c", null);
                live.tick(after);
            }
            case NODE_LEFT -> live.removeNode(live.openRequest("a").grantedNodeIds().get(0), after);
            case JOB_ENDED -> live.endJob("a", after);
        }

        MarketChanges.Gone gone = live.changes().gone().stream().filter(g -> g.id().equals("a")).findFirst().orElseThrow();
        assertThat(gone.endedAt()).isEqualTo(decided);
        assertThat(gone.revoked()).isEqualTo(how != Leaving.JOB_ENDED);
        if (how == Leaving.JOB_ENDED) {
            assertThat(live.hasOpenRequest("a")).isFalse();
        } else {
            MarketRequest next = live.openRequest("a");
            assertThat(next.id()).isEqualTo("a#2");
            assertThat(next.createdAt()).as("the successor is filed at the instant its predecessor ended").isEqualTo(gone.endedAt());
        }
    }

    @Test
    void aNoticeIsRescindedWhenTheDemandGoesAwayWithinIt() {
        MarketRequest a = file("a", "acme-c", 4, null);
        Ticks.tickReady(market, T0);
        Instant later = at(Duration.ofHours(3));
        market.file(new JobDemand("b", "beta-c", POOL, 8, null, PriorityClass.NONE), later);
        Ticks.tickReady(market, later);
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);

        market.endJob("b", later.plusSeconds(20));
        TickOutcome o = Ticks.tickReady(market, later.plusSeconds(30));

        assertThat(events(o, MarketEvent.ReclaimRescinded.class)).extracting(MarketEvent.ReclaimRescinded::requestId)
                .containsExactly("a");
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(a.grantedNodes()).isEqualTo(4);
        assertThat(a.noticeDeadline()).isNull();
    }

    @Test
    void aProtectedGangKeepsItsNodesAgainstAnyBid() {
        MarketRequest a = file("a", "acme-c", 4, null);
        Ticks.tickReady(market, T0);
        MarketRequest b = market.file(new JobDemand("b", "beta-c", POOL, 8, Money.parse("50"), PriorityClass.NONE),
                at(Duration.ofMinutes(30)));
        TickOutcome o = Ticks.tickReady(market, at(Duration.ofMinutes(30)));
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(events(o, MarketEvent.PreemptionNoticed.class)).isEmpty();
        assertThat(b.reason()).isEqualTo(Reason.PENDING_SUPPLY);
    }

    @Test
    void loweringTheLimitVoidsTheWindowTheReclaimIsAtOnceAndTheNodesDrainTheEvictionGraceBeforeTheWinnerTakesThem() {
        MarketRequest a = file("a", "acme-c", 4, null);
        Ticks.tickReady(market, T0);
        Instant t = at(Duration.ofMinutes(30));
        market.setClusterLimit("acme-c", Money.parse("1.50"));
        MarketRequest b = market.file(new JobDemand("b", "beta-c", POOL, 32, null, PriorityClass.NONE), t);
        TickOutcome o = Ticks.tickReady(market, t);

        MarketEvent.GangReclaimedAtOnce reclaim = events(o, MarketEvent.GangReclaimedAtOnce.class).get(0);
        assertThat(reclaim.cause()).isEqualTo(ReclaimCause.LIMIT_LOWERED);
        assertThat(events(o, MarketEvent.PreemptionNoticed.class)).isEmpty();
        assertThat(a.phase()).isEqualTo(RequestPhase.REVOKED);
        assertThat(b.grantedNodes()).as("the nodes drain: not grantable").isZero();
        assertThat(o.feed().get(0).supply()).as("draining nodes are not supply").isZero();
        assertThat(market.node("n1").drainingUntil()).isEqualTo(t.plusSeconds(60));

        Ticks.tickReady(market, t.plusSeconds(59));
        assertThat(b.grantedNodes()).isZero();
        TickOutcome drained = Ticks.tickReady(market, t.plusSeconds(60));
        assertThat(b.grantedNodes()).isEqualTo(4);
        assertThat(b.lockedRate()).isEqualTo(Money.parse("3.00"));
        assertThat(drained.feed().get(0).supply()).isEqualTo(4);
    }

    @Test
    void aLimitBelowAReservedRaisedPastItIsReclaimedAtOnceEvenInsideItsWindowOnlyOnceTheWindowVoids() {
        MarketRequest a = file("a", "acme-c", 1, null);
        Ticks.tickReady(market, T0);
        market.changeReserve(POOL, Money.parse("2.50"));
        Ticks.tickReady(market, at(Duration.ofMinutes(10)));
        assertThat(a.phase()).as("protected: the window holds at an unchanged limit").isEqualTo(RequestPhase.ADMITTED);
        TickOutcome o = Ticks.tickReady(market, at(Duration.ofHours(2)));
        assertThat(events(o, MarketEvent.GangReclaimedAtOnce.class)).extracting(MarketEvent.GangReclaimedAtOnce::cause)
                .containsExactly(ReclaimCause.LIMIT_BELOW_RESERVE);
        assertThat(market.openRequest("a").reason()).isIn(Reason.PENDING, Reason.BID_TOO_LOW);
    }

    @Test
    void billingIsTheLockedRateInsideTheWindowThenTheTicksPriceAndAReplayBillsNothingTwice() {
        MarketRequest a = file("a", "acme-c", 1, "5.00");
        file("b", "beta-c", 1, null);
        Ticks.tickReady(market, T0);   // price 3.00 (the lowest accepted), locked
        TickOutcome hour = Ticks.tickReady(market, at(Duration.ofHours(1)));
        assertThat(hour.charges()).hasSize(2).allSatisfy(c -> {
            assertThat(c.rate()).isEqualTo(Money.parse("3.00"));
            assertThat(c.amount()).isEqualTo(Money.parse("24.00"));
            assertThat(c.locked()).isTrue();
        });
        assertThat(Ticks.tickReady(market, at(Duration.ofHours(1))).charges()).as("replay of the same tick").isEmpty();

        market.endJob("b", at(Duration.ofHours(1)));
        Ticks.tickReady(market, at(Duration.ofMinutes(61)));
        TickOutcome windowEnd = Ticks.tickReady(market, at(Duration.ofHours(2)));
        assertThat(windowEnd.charges()).filteredOn(c -> c.clusterId().equals("acme-c"))
                .extracting(Charge::locked, Charge::rate, Charge::to)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(true, Money.parse("3.00"), a.protectedUntil()));
        assertThat(windowEnd.feed().get(0).price()).as("a lone bidder clears at its own limit")
                .isEqualTo(Money.parse("5.00"));
        TickOutcome after = Ticks.tickReady(market, at(Duration.ofHours(3)));
        assertThat(after.charges()).filteredOn(c -> c.clusterId().equals("acme-c"))
                .extracting(Charge::locked, Charge::rate, Charge::amount)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(false, Money.parse("5.00"), Money.parse("40.00")));
    }

    @Test
    void ledgerEntriesEndOnTheHourAndAGrantIsRecordedAsBilledOnlyWhenItsEntryOpensOrClosesForGood() {
        file("a", "acme-c", 1, null);
        Ticks.tickReady(market, at(Duration.ofMinutes(10)));   // ready at 00:10: bills from there
        Market live = Market.restore(market.snapshot());       // a restored market records its changes
        live.tick(at(Duration.ofMinutes(20)));
        assertThat(live.changes().billed()).as("its entry opened").extracting(MarketSnapshot.GrantState::entryFrom)
                .containsExactly(at(Duration.ofMinutes(10)));
        live.clearChanges();
        MarketSnapshot saved = live.snapshot();
        TickOutcome inside = live.tick(at(Duration.ofMinutes(40)));
        assertThat(inside.charges()).isEmpty();
        assertThat(live.changes().billed()).as("accrued at its open entry's rate: a restore works it out").isEmpty();

        TickOutcome crossing = live.tick(at(Duration.ofMinutes(65)));

        assertThat(crossing.charges()).extracting(Charge::from, Charge::to).containsExactly(
                org.assertj.core.groups.Tuple.tuple(at(Duration.ofMinutes(10)), at(Duration.ofHours(1))));
        assertThat(crossing.charges().get(0).amount()).as("50 minutes of 8 GPUs at 2.00").isEqualTo(Money.parse("13.333333"));
        assertThat(live.changes().billed()).as("on into the next hour at the same rate: a restore works it out too")
                .isEmpty();
        assertThat(live.snapshot().tenants()).filteredOn(t -> t.id().equals("acme"))
                .extracting(MarketSnapshot.TenantState::settledMicros).containsExactly(13_333_333L);
        assertThat(live.tenant("acme").charged()).as("settled plus the open entry's five minutes")
                .isEqualTo(Money.parse("14.666666"));
        assertThat(live.openEntries("acme")).extracting(Charge::from, Charge::to, Charge::amount).containsExactly(
                org.assertj.core.groups.Tuple.tuple(at(Duration.ofHours(1)), at(Duration.ofMinutes(65)), Money.parse("1.333333")));
        assertThat(live.openEntries("beta")).isEmpty();
        // what a store kept: the grant as saved at 00:20, the tenants and the last tick as they are now
        MarketSnapshot now = live.snapshot();
        Market restored = Market.restore(new MarketSnapshot(now.timings(), now.lastTick(), now.sequence(),
                now.grantSequence(), now.pools(), now.tenants(), now.clusters(), now.requests(), saved.grants(),
                now.idleOrder(), now.betweenTicks(), now.endedAttempts()));
        assertThat(restored.snapshot()).isEqualTo(now);
        assertThat(restored.tenant("acme").charged()).isEqualTo(Money.parse("14.666666"));

        live.clearChanges();
        live.tick(at(Duration.ofHours(2)));
        assertThat(live.changes().billed()).as("a tick on the hour closes the entry and opens none: recorded")
                .extracting(MarketSnapshot.GrantState::entryFrom).containsOnlyNulls().hasSize(1);
    }

    @Test
    void anEndedJobsNodeStaysForTheHoldThenTheIdleGraceUnlessItsClusterTakesItFirst() {
        MarketRequest a = file("a", "acme-c", 2, null);
        Ticks.tickReady(market, T0);
        market.endJob("a", at(Duration.ofMinutes(10)));
        Ticks.tickReady(market, at(Duration.ofMinutes(30)));
        assertThat(market.freeNodes(POOL)).isEqualTo(2);
        assertThat(market.liveGrants()).hasSize(2).allMatch(NodeGrant::idle);

        Instant t = at(Duration.ofMinutes(40));
        MarketRequest next = market.file(new JobDemand("next", "acme-c", POOL, 8, null, PriorityClass.NONE), t);
        MarketRequest other = market.file(new JobDemand("other", "beta-c", POOL, 24, null, PriorityClass.NONE), t);
        TickOutcome o = Ticks.tickReady(market, t);
        assertThat(next.grantedNodeIds()).containsExactly("n1");
        assertThat(other.grantedNodes()).as("the idle node is the cluster's, not supply").isZero();
        assertThat(market.liveGrants()).hasSize(2);

        TickOutcome release = Ticks.tickReady(market, at(Duration.ofMinutes(61)));
        assertThat(events(release, MarketEvent.NodeReleased.class)).extracting(MarketEvent.NodeReleased::nodeId)
                .containsExactly("n2");
        assertThat(a.phase()).isEqualTo(RequestPhase.CLOSED);
        assertThat(o.feed().get(0).granted()).isEqualTo(2);
    }

    @Test
    void theMaxClusterSizeQueuesByPriorityAndALargerThanTheCapRequestNeverFiles() {
        market.addCluster("small", "acme", 16, Money.parse("2.00"));
        MarketRequest first = market.file(new JobDemand("first", "small", POOL, 16, null, PriorityClass.NONE), T0);
        MarketRequest low = market.file(new JobDemand("low", "small", POOL, 8, null, PriorityClass.LOW), T0);
        MarketRequest high = market.file(new JobDemand("high", "small", POOL, 8, null, PriorityClass.HIGH), T0);
        MarketRequest huge = market.file(new JobDemand("huge", "small", POOL, 24, null, PriorityClass.HIGH), T0);
        assertThat(first.phase()).isEqualTo(RequestPhase.WAITING);
        assertThat(List.of(low, high, huge)).allMatch(r -> r.reason() == Reason.QUOTA_WAIT);

        Ticks.tickReady(market, T0);
        market.endJob("first", at(Duration.ofMinutes(5)));
        Ticks.tickReady(market, at(Duration.ofMinutes(5)));
        assertThat(high.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(low.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(huge.phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(huge.message()).contains("more than the max cluster size");
    }

    @Test
    void subNodeRequestsPackOntoTheBlockAndNeverBid() {
        market.assignBlock("acme-c", "n4");
        market.blockNodeReady("n4", T0);
        MarketRequest s1 = market.file(new JobDemand("s1", "acme-c", POOL, 4, null, PriorityClass.LOW), T0);
        MarketRequest s2 = market.file(new JobDemand("s2", "acme-c", POOL, 4, null, PriorityClass.NONE), T0);
        MarketRequest s3 = market.file(new JobDemand("s3", "acme-c", POOL, 2, null, PriorityClass.HIGH), T0);
        MarketRequest noBlock = market.file(new JobDemand("nb", "beta-c", POOL, 2, null, PriorityClass.HIGH), T0);
        TickOutcome o = Ticks.tickReady(market, T0);
        assertThat(o.feed().get(0).supply()).isEqualTo(3);
        assertThat(s3.phase()).isEqualTo(RequestPhase.SEATED);
        assertThat(s1.phase()).isEqualTo(RequestPhase.SEATED);
        assertThat(s2.reason()).isEqualTo(Reason.BLOCK_WAIT);
        assertThat(noBlock.reason()).isEqualTo(Reason.BLOCK_WAIT);
        assertThat(o.feed().get(0).price()).isNull();
        market.endJob("s3", at(Duration.ofMinutes(1)));
        Ticks.tickReady(market, at(Duration.ofMinutes(1)));
        assertThat(s2.blockNodeId()).as("4 GPUs free once s3 ends").isEqualTo("n4");
        assertThat(noBlock.phase()).isEqualTo(RequestPhase.QUEUED);
    }

    @Test
    void subNodeRequestsWaitUntilABlockNodeIsReadyInTheClusterAndWaitAgainWhenItLeaves() {
        market.assignBlock("acme-c", "n4");
        MarketRequest s1 = market.file(new JobDemand("s1", "acme-c", POOL, 4, null, PriorityClass.NONE), T0);
        Ticks.tickReady(market, T0);
        assertThat(s1.phase()).as("a block that has not joined the cluster is not live").isEqualTo(RequestPhase.QUEUED);
        assertThat(s1.reason()).isEqualTo(Reason.BLOCK_WAIT);

        market.blockNodeReady("n4", at(Duration.ofSeconds(10)));
        Ticks.tickReady(market, at(Duration.ofSeconds(10)));
        assertThat(s1.phase()).isEqualTo(RequestPhase.SEATED);
        assertThat(s1.reason()).isEqualTo(Reason.PROVISIONED);
        assertThat(s1.blockNodeId()).isEqualTo("n4");

        market.blockNodeLeft("n4");
        Ticks.tickReady(market, at(Duration.ofSeconds(20)));
        assertThat(s1.phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(s1.reason()).isEqualTo(Reason.BLOCK_WAIT);
    }

    @Test
    void freedBlockGpusGoToTheHigherClassFirstThenTheOlderAndPackingOffLeavesSeatedRequestsSeated() {
        market.assignBlock("acme-c", "n4");
        market.blockNodeReady("n4", T0);
        MarketRequest running = market.file(new JobDemand("running", "acme-c", POOL, 4, null, PriorityClass.NONE), T0);
        MarketRequest other = market.file(new JobDemand("other", "acme-c", POOL, 4, null, PriorityClass.NONE), T0);
        Ticks.tickReady(market, T0);
        assertThat(List.of(running, other)).allMatch(r -> r.phase() == RequestPhase.SEATED);
        Instant t1 = at(Duration.ofMinutes(1));
        MarketRequest oldLow = market.file(new JobDemand("old-low", "acme-c", POOL, 4, null, PriorityClass.LOW), t1);
        MarketRequest oldNone = market.file(new JobDemand("old-none", "acme-c", POOL, 4, null, PriorityClass.NONE), t1);
        MarketRequest newHigh = market.file(new JobDemand("new-high", "acme-c", POOL, 4, null, PriorityClass.HIGH), t1);
        MarketRequest newLow = market.file(new JobDemand("new-low", "acme-c", POOL, 4, null, PriorityClass.LOW), t1);
        Ticks.tickReady(market, t1);
        assertThat(List.of(oldLow, oldNone, newHigh, newLow)).allMatch(r -> r.reason() == Reason.BLOCK_WAIT);

        market.changeCluster("acme-c", market.cluster("acme-c").maxGpus(), false, at(Duration.ofMinutes(2)));
        Ticks.tickReady(market, at(Duration.ofMinutes(2)));
        assertThat(List.of(running, other)).as("switching packing off leaves running requests alone")
                .allMatch(r -> r.phase() == RequestPhase.SEATED);

        market.endJob("running", at(Duration.ofMinutes(3)));
        Ticks.tickReady(market, at(Duration.ofMinutes(3)));
        assertThat(newHigh.phase()).as("the higher class first").isEqualTo(RequestPhase.SEATED);
        assertThat(List.of(oldLow, oldNone, newLow)).allMatch(r -> r.reason() == Reason.BLOCK_WAIT);

        market.endJob("other", at(Duration.ofMinutes(4)));
        Ticks.tickReady(market, at(Duration.ofMinutes(4)));
        assertThat(oldLow.phase()).as("then the older within a class").isEqualTo(RequestPhase.SEATED);
        assertThat(newLow.reason()).isEqualTo(Reason.BLOCK_WAIT);
        assertThat(oldNone.reason()).as("no class ranks below low").isEqualTo(Reason.BLOCK_WAIT);
    }

    @Test
    void aNodeTakenOutOfServiceStopsBillingAndItsReplacementInheritsTheLockedRateAndWindow() {
        market.removeNode("n4", T0);
        MarketRequest a = file("a", "acme-c", 2, null);
        Ticks.tickReady(market, T0);
        market.file(new JobDemand("b", "beta-c", POOL, 8, null, PriorityClass.NONE), T0);
        assertThat(a.lockedRate()).isEqualTo(Money.parse("2.00"));
        Instant fail = at(Duration.ofMinutes(20));
        market.nodeOutOfService("n1", fail);
        assertThat(market.cluster("acme-c").claimsOwed(POOL)).isEqualTo(1);
        TickOutcome o = Ticks.tickReady(market, at(Duration.ofMinutes(30)));

        MarketEvent.NodeGranted replacement = events(o, MarketEvent.NodeGranted.class).stream()
                .filter(MarketEvent.NodeGranted::replacement).findFirst().orElseThrow();
        assertThat(replacement.requestId()).isEqualTo("a");
        assertThat(replacement.lockedRate()).isEqualTo(Money.parse("2.00"));
        assertThat(replacement.protectedUntil()).isEqualTo(at(Duration.ofHours(2)));
        assertThat(a.reason()).isEqualTo(Reason.PROVISIONED);
        assertThat(o.charges().stream().filter(c -> c.nodeId().equals("n1")))
                .allSatisfy(c -> assertThat(c.to()).isEqualTo(fail));

        market.nodeBack("n1", at(Duration.ofMinutes(40)));
        assertThat(market.node("n1").grant().idle()).isTrue();
    }

    @Test
    void aGangWhoseNodesGotReadyAtDifferentTimesIsProtectedUntilTheLastOfTheirWindowsEnds() {
        MarketRequest a = file("a", "acme-c", 2, null);
        market.tick(T0);
        market.nodeReady("n1", T0);
        Instant late = at(Duration.ofMinutes(30));
        market.nodeReady("n2", late);
        assertThat(a.protectedUntil()).isEqualTo(late.plus(Duration.ofHours(2)));

        market.removeNode("n3", T0);
        market.removeNode("n4", T0);
        market.file(new JobDemand("b", "beta-c", POOL, 16, Money.parse("5.00"), PriorityClass.NONE), at(Duration.ofHours(2)));
        Ticks.tickReady(market, at(Duration.ofMinutes(121)));
        assertThat(a.phase()).as("n2's window still runs: no notice inside it").isEqualTo(RequestPhase.ADMITTED);

        TickOutcome o = Ticks.tickReady(market, at(Duration.ofMinutes(150)));
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);
        assertThat(events(o, MarketEvent.PreemptionNoticed.class)).singleElement()
                .satisfies(n -> assertThat(n.deadline()).isAfter(a.protectedUntil()));
    }

    @Test
    void aTenantWhoseBalanceCannotFundTwoHoursWaitsWithBalanceTooLowAndATopUpClearsIt() {
        market.addTenant("poor", Money.usd(10));
        market.addCluster("poor-c", "poor", 64, Money.parse("2.00"));
        MarketRequest p = market.file(new JobDemand("p", "poor-c", POOL, 8, null, PriorityClass.NONE), T0);
        Ticks.tickReady(market, T0);
        assertThat(p.reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
        assertThat(p.message()).contains("32.00");
        market.credit("poor", Money.usd(30));
        Ticks.tickReady(market, at(Duration.ofSeconds(10)));
        assertThat(p.phase()).isEqualTo(RequestPhase.ADMITTED);
    }

    @Test
    void aChargeBilledElsewhereComesOffTheBalanceTheTickGatesOnAndIsKeptAcrossARestore() {
        market.addTenant("stores", Money.usd(40));
        market.addCluster("stores-c", "stores", 64, Money.parse("2.00"));
        market.chargeElsewhere("stores", Money.usd(10));   // 30 left; two hours of 8 GPUs at 2.00 need 32
        MarketRequest p = market.file(new JobDemand("p", "stores-c", POOL, 8, null, PriorityClass.NONE), T0);
        Ticks.tickReady(market, T0);
        assertThat(p.reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
        assertThat(p.message()).contains("balance 30.00 USD");
        Market restored = Market.restore(market.snapshot());
        assertThat(restored.tenant("stores").balanceMicros()).isEqualTo(Money.usd(30).micros());
        assertThat(restored.tenant("stores").charged()).isEqualTo(Money.usd(10));
    }

    @Test
    void aChargeBilledElsewhereIsTakenInFullBelowZeroAndATopUpPaysItFirst() {
        market.addTenant("owes", Money.usd(5));
        market.chargeElsewhere("owes", Money.usd(8));
        assertThat(market.tenant("owes").balanceMicros()).isEqualTo(-Money.usd(3).micros());
        market.credit("owes", Money.usd(10));
        assertThat(market.tenant("owes").balanceMicros()).isEqualTo(Money.usd(7).micros());
        assertThatThrownBy(() -> market.chargeElsewhere("nobody", Money.usd(1))).isInstanceOf(DomainException.class);
    }

    @Test
    void raisingTheLimitWithinTheNoticeRescindsTheReclaim() {
        MarketRequest a = file("a", "acme-c", 4, null);
        Ticks.tickReady(market, T0);
        Instant t = at(Duration.ofHours(3));
        market.file(new JobDemand("b", "beta-c", POOL, 8, null, PriorityClass.NONE), t);
        Ticks.tickReady(market, t);
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);

        market.setJobLimit("a", Money.parse("3.50"));
        TickOutcome o = Ticks.tickReady(market, t.plusSeconds(50));
        assertThat(events(o, MarketEvent.ReclaimRescinded.class)).hasSize(1);
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(a.protectedUntil()).as("raising never resets the window").isEqualTo(at(Duration.ofHours(2)));
        assertThat(market.openRequest("b").reason()).isEqualTo(Reason.OUTBID);
        assertThat(o.feed().get(0).price()).as("a alone is accepted: its own limit").isEqualTo(Money.parse("3.50"));
    }

    @Test
    void aBalanceThatRunsOutIsReclaimedAtOnceOnTheTickItReachesZeroAndIsNeverOverdrawn() {
        market.addTenant("thin", Money.usd(70));
        market.addCluster("thin-c", "thin", 64, Money.parse("2.00"));
        MarketRequest a = market.file(new JobDemand("a", "thin-c", POOL, 8, null, PriorityClass.NONE), T0);
        Ticks.tickReady(market, T0);                              // 8 GPUs x 2.00 = 16 USD an hour
        Ticks.tickReady(market, at(Duration.ofMinutes(90)));      // 24 USD billed
        Ticks.tickReady(market, at(Duration.ofMinutes(119)));
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        // [2h, 2h30m) bills at the reserve (1.00): the tick at 1h59m had no price (a was protected, no bidder)
        Ticks.tickReady(market, at(Duration.ofMinutes(150)));     // 36 USD by now; window over, balance still positive
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        TickOutcome o = Ticks.tickReady(market, at(Duration.ofMinutes(285)));   // 72 USD owed, 70 left: ran out
        assertThat(market.tenant("thin").balanceMicros()).as("never overdrawn").isZero();
        assertThat(events(o, MarketEvent.GangReclaimedAtOnce.class)).extracting(MarketEvent.GangReclaimedAtOnce::cause)
                .containsExactly(ReclaimCause.BALANCE_RAN_OUT);
        assertThat(market.openRequest("a").reason()).as("requeued, not read yet").isEqualTo(Reason.PENDING);
        Ticks.tickReady(market, at(Duration.ofMinutes(400)));
        assertThat(market.openRequest("a").reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
        assertThat(market.tenant("thin").balanceMicros()).isZero();
    }

    @Test
    void aBalanceThatRunsOutInsideTheWindowIsReclaimedAtOnceAndItsIdleNodesGoToo() {
        threeNodesOfAThinTenantOneIdle();
        TickOutcome o = Ticks.tickReady(market, at(Duration.ofMinutes(55)));   // 3 x 16 x 55/60 = 44 > 40
        assertThat(market.tenant("thin").balanceMicros()).isZero();
        assertThat(events(o, MarketEvent.GangReclaimedAtOnce.class)).extracting(MarketEvent.GangReclaimedAtOnce::cause)
                .containsExactly(ReclaimCause.BALANCE_RAN_OUT, ReclaimCause.BALANCE_RAN_OUT);
        assertThat(market.liveGrants()).isEmpty();
        Ticks.tickReady(market, at(Duration.ofMinutes(90)));
        assertThat(market.tenant("thin").balanceMicros()).isZero();
    }

    @Test
    void anIdleNodeReleasedBecauseItsTenantRanOutNoLongerCountsInTheBalanceGateOfThatTick() {
        threeNodesOfAThinTenantOneIdle();
        MarketRequest d = market.file(new JobDemand("d", "thin-c", POOL, 8, null, PriorityClass.NONE),
                at(Duration.ofMinutes(50)));
        Ticks.tickReady(market, at(Duration.ofMinutes(55)));   // ran out: c's idle node goes before the gate
        assertThat(d.reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
        // a's and b's nodes still bill when d is read (they are reclaimed after): 2 x 32, plus d's own 32
        assertThat(d.message()).contains("needs 96.00 USD");
    }

    /** A tenant of 40 USD running a, b and c on a node each at 2.00 from T0; c ended at +10 min, its node idle. */
    private void threeNodesOfAThinTenantOneIdle() {
        market.addTenant("thin", Money.usd(40));
        market.addCluster("thin-c", "thin", 64, Money.parse("2.00"));
        // each request alone is covered (32 USD for two hours), the three together are not
        for (String job : List.of("a", "b", "c")) {
            market.file(new JobDemand(job, "thin-c", POOL, 8, null, PriorityClass.NONE), T0);
        }
        Ticks.tickReady(market, T0);
        market.endJob("c", at(Duration.ofMinutes(10)));            // c's node idles, billing inside its hold
    }

    // ---------------------------------------------------------------- a granted node removed

    @Test
    void aGrantedNodeTheOperatorRemovesEndsItsRequestReleasesTheGangAndRequeuesTheJobWithNoReplacement() {
        MarketRequest a = file("a", "acme-c", 3, null);
        TickOutcome first = Ticks.tickReady(market, T0);
        String removed = events(first, MarketEvent.NodeGranted.class).get(0).nodeId();
        Instant t = at(Duration.ofMinutes(20));
        market.removeNode(removed, t);

        assertThat(a.phase()).isEqualTo(RequestPhase.REVOKED);
        assertThat(a.reason()).isEqualTo(Reason.MARKET_REVOKED);
        MarketRequest next = market.openRequest("a");
        assertThat(next.attempt()).isEqualTo(2);
        assertThat(market.cluster("acme-c").claimsOwed(POOL)).as("only a health-check cordon owes one").isZero();
        TickOutcome o = Ticks.tickReady(market, t);
        assertThat(events(o, MarketEvent.GangRevoked.class)).extracting(MarketEvent.GangRevoked::requeuedAs)
                .containsExactly(next.id());
        assertThat(market.nodes(POOL)).extracting(Node::id).doesNotContain(removed);
        assertThat(next.grantedNodes()).as("the gang's other nodes drain first").isZero();
        Ticks.tickReady(market, t.plusSeconds(60));
        assertThat(next.grantedNodes()).isEqualTo(3);
        assertThat(next.lockedRate()).as("a new request at the current limit").isEqualTo(Money.parse("2.00"));
        assertThat(next.protectedUntil()).isEqualTo(t.plusSeconds(60).plus(Duration.ofHours(2)));
        assertThat(market.liveGrants()).noneMatch(NodeGrant::replacement);
    }

    // ---------------------------------------------------------------- node ready

    @Test
    void aGangReadsProvisioningKOfNUntilEveryNodeIsReadyAndItsHoldWindowAndBillingStartWhenEachIsReady() {
        MarketRequest a = file("a", "acme-c", 2, null);
        TickOutcome o = market.tick(T0);
        assertThat(a.grantedNodes()).isEqualTo(2);
        assertThat(a.reason()).isEqualTo(Reason.PROVISIONING);
        assertThat(a.message()).isEqualTo("Provisioning (0 of 2 granted nodes ready)");
        assertThat(a.protectedUntil()).isNull();
        List<String> granted = events(o, MarketEvent.NodeGranted.class).stream()
                .map(MarketEvent.NodeGranted::nodeId).toList();

        Instant firstReady = at(Duration.ofMinutes(4));
        assertThat(market.nodeReady(granted.get(0), firstReady)).isNotEmpty();
        assertThat(a.message()).isEqualTo("Provisioning (1 of 2 granted nodes ready)");
        assertThat(market.nodeReady(granted.get(0), firstReady)).as("idempotent").isEmpty();
        Instant secondReady = at(Duration.ofMinutes(6));
        List<MarketEvent> events = market.nodeReady(granted.get(1), secondReady);
        assertThat(events).filteredOn(MarketEvent.GangProvisioned.class::isInstance).hasSize(1);
        assertThat(a.reason()).isEqualTo(Reason.PROVISIONED);
        assertThat(a.protectedUntil()).as("the gang's window ends with the last of its nodes'")
                .isEqualTo(secondReady.plus(Duration.ofHours(2)));
        NodeGrant second = market.node(granted.get(1)).grant();
        assertThat(second.holdUntil()).isEqualTo(secondReady.plus(Duration.ofHours(1)));
        assertThat(second.protectedUntil()).isEqualTo(secondReady.plus(Duration.ofHours(2)));

        // 2.00 x 8 GPUs: 56 minutes and 54 minutes by the tick at one hour, nothing before each was ready
        Ticks.tickReady(market, at(Duration.ofHours(1)));
        assertThat(market.tenant("acme").charged()).isEqualTo(Money.parse("29.333333"));
        // a gang still provisioning is not outbid: its window has not started
        market.file(new JobDemand("b", "beta-c", POOL, 32, Money.parse("9.00"), PriorityClass.NONE), at(Duration.ofHours(1)));
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
    }

    @Test
    void aGangNotYetReadyIsNotReclaimedWithNotice() {
        MarketRequest a = file("a", "acme-c", 4, null);
        market.tick(T0);
        Instant later = at(Duration.ofHours(3));
        market.file(new JobDemand("b", "beta-c", POOL, 32, Money.parse("9.00"), PriorityClass.NONE), later);
        TickOutcome o = market.tick(later);
        assertThat(events(o, MarketEvent.PreemptionNoticed.class)).isEmpty();
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
    }

    // ---------------------------------------------------------------- money

    @Test
    void fourNodesOfEightGpusAtTwoFiftyForExactlyThirtyMinutesChargeExactlyForty() {
        market.changeReserve(POOL, Money.parse("2.50"));
        market.setClusterLimit("acme-c", Money.parse("2.50"));
        MarketRequest a = file("a", "acme-c", 4, null);
        Ticks.tickReady(market, T0);
        long charged = 0;
        Instant t = T0;
        for (int i = 0; i < 257; i++) {      // ticks 7 seconds apart, then the rest
            t = t.plusSeconds(7);
            charged += Ticks.tickReady(market, t).charges().stream().mapToLong(c -> c.amount().micros()).sum();
        }
        market.endJob("a", at(Duration.ofMinutes(30)));
        assertThat(a.phase()).isEqualTo(RequestPhase.CLOSED);
        market.removeNode("n1", at(Duration.ofMinutes(30)));
        market.removeNode("n2", at(Duration.ofMinutes(30)));
        market.removeNode("n3", at(Duration.ofMinutes(30)));
        market.removeNode("n4", at(Duration.ofMinutes(30)));
        charged += Ticks.tickReady(market, at(Duration.ofMinutes(31))).charges().stream()
                .mapToLong(c -> c.amount().micros()).sum();
        assertThat(market.tenant("acme").charged()).isEqualTo(Money.parse("40.00"));
        assertThat(Money.ofMicros(charged)).as("the ledger agrees").isEqualTo(Money.parse("40.00"));
    }

    @Test
    void theBalanceGateCountsIdleNodesInTheirGrace() {
        market.addTenant("mid", Money.usd(70));
        market.addCluster("mid-c", "mid", 64, Money.parse("2.00"));
        market.file(new JobDemand("a", "mid-c", POOL, 8, null, PriorityClass.NONE), T0);
        Ticks.tickReady(market, T0);
        market.endJob("a", at(Duration.ofMinutes(1)));
        // balance ~69.47; the idle node bills 32 USD over two hours, a two-node request needs 64 more
        MarketRequest b = market.file(new JobDemand("b", "mid-c", POOL, 16, null, PriorityClass.NONE),
                at(Duration.ofMinutes(2)));
        Ticks.tickReady(market, at(Duration.ofMinutes(2)));
        assertThat(b.reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
    }

    // ---------------------------------------------------------------- no input stops a tick

    @Test
    void aJobLimitAboveTheMaximumIsRefusedWhenFiledAndNeverReachesTheTick() {
        assertThatThrownBy(() -> market.file(new JobDemand("x", "acme-c", POOL, 8, Money.parse("100000.01"),
                PriorityClass.NONE), T0)).isInstanceOfSatisfying(DomainException.class,
                        e -> assertThat(e.details().get("reason")).isEqualTo("limit-too-high"));
        assertThat(market.hasOpenRequest("x")).isFalse();
    }

    @Test
    void aPoolWhoseClearingFailsFailsAloneTheOtherPoolsClearAndTheFailureIsCounted() {
        PoolId other = new PoolId("us-west", "h100-8x");
        market.addPool(other, 8, Money.parse("1.00"));
        market.addNode("w1", other);
        file("a", "acme-c", 1, null);
        market.file(new JobDemand("b", "beta-c", other, 8, null, PriorityClass.NONE), T0);
        MarketSnapshot s = market.snapshot();
        // a limit no write path lets in (a bad row, say), so the clearing of POOL throws
        List<MarketSnapshot.RequestState> requests = s.requests().stream().map(r -> !r.id().equals("a") ? r
                : new MarketSnapshot.RequestState(r.id(), r.jobId(), r.attempt(), r.clusterId(), r.pool(), r.gpus(),
                        r.nodes(), r.priority(), r.sequence(), r.createdAt(), Money.usd(300_000), r.phase(),
                        r.reason(), r.message(), r.grantIds(), r.lockedRate(), r.protectedUntil(), r.startLimit(),
                        r.noticeDeadline(), r.provisioned(), r.blockNodeId(), r.marketRate(), r.lockedInForce()))
                .toList();
        List<MarketSnapshot.TenantState> tenants = s.tenants().stream().map(t -> new MarketSnapshot.TenantState(
                t.id(), Money.usd(1_000_000_000).micros(), t.settledMicros())).toList();
        Market broken = Market.restore(new MarketSnapshot(s.timings(), s.lastTick(), s.sequence(), s.grantSequence(),
                s.pools(), tenants, s.clusters(), requests, s.grants(), s.idleOrder(), s.betweenTicks(),
                s.endedAttempts()));

        TickOutcome o = broken.tick(T0);

        assertThat(o.failures()).extracting(PoolFailure::pool).containsExactly(POOL);
        assertThat(o.feed()).extracting(PoolTick::pool).containsExactly(other);
        assertThat(broken.openRequest("b").grantedNodes()).isEqualTo(1);
        assertThat(broken.clearingFailures()).isEqualTo(1);
    }

    @Test
    void aJobLargerThanOneNodeMustAskForWholeNodes() {
        assertThatThrownBy(() -> market.file(new JobDemand("x", "acme-c", POOL, 12, null, PriorityClass.NONE), T0))
                .isInstanceOfSatisfying(DomainException.class,
                        e -> assertThat(e.details().get("reason")).isEqualTo("JobSizeNotNodeAligned"));
    }
}
