package com.bettercompute.domain.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.domain.DomainException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

        TickOutcome o = market.tick(T0);

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
        TickOutcome o = market.tick(T0);
        assertThat(o.feed().get(0).price()).isNull();
        assertThat(a.reason()).isEqualTo(Reason.BID_TOO_LOW);
        assertThat(market.freeNodes(POOL)).isEqualTo(4);
    }

    @Test
    void theReserveFloorsThePrice() {
        market.changeReserve(POOL, Money.parse("2.50"));
        file("b", "beta-c", 1, null);
        MarketRequest a = file("a", "acme-c", 1, null);
        TickOutcome o = market.tick(T0);
        assertThat(o.feed().get(0).price()).isEqualTo(Money.parse("3.00"));
        assertThat(a.reason()).isEqualTo(Reason.BID_TOO_LOW);
    }

    @Test
    void aGangThatDoesNotFitIsSkippedAndASmallerOneBehindItTakesTheRest() {
        MarketRequest big = file("big", "beta-c", 3, "5.00");
        MarketRequest mid = file("mid", "beta-c", 2, "4.00");
        MarketRequest small = file("small", "acme-c", 1, "2.00");
        market.tick(T0);
        assertThat(big.grantedNodes()).isEqualTo(3);
        assertThat(mid.grantedNodes()).isZero();
        assertThat(mid.reason()).isEqualTo(Reason.OUTBID);
        assertThat(small.grantedNodes()).isEqualTo(1);
        assertThat(market.lastPrice(POOL)).isEqualTo(Money.parse("2.00"));
    }

    @Test
    void aRunningGangOutsideItsWindowIsOutbidWithOneMinutesNoticeThenRevokedAtTheDeadline() {
        MarketRequest a = file("a", "acme-c", 4, null);
        market.tick(T0);
        assertThat(a.grantedNodes()).isEqualTo(4);

        Instant later = at(Duration.ofHours(2).plusMinutes(1));
        MarketRequest b = market.file(new JobDemand("b", "beta-c", POOL, 16, null, PriorityClass.NONE), later);
        TickOutcome o = market.tick(later);

        MarketEvent.PreemptionNoticed notice = events(o, MarketEvent.PreemptionNoticed.class).get(0);
        assertThat(notice.requestId()).isEqualTo("a");
        assertThat(notice.deadline()).isEqualTo(later.plusSeconds(60));
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);
        assertThat(a.reason()).isEqualTo(Reason.MARKET_PREEMPTION);
        assertThat(b.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(b.grantedNodes()).isZero();
        assertThat(b.reason()).isEqualTo(Reason.PROVISIONING);

        TickOutcome atDeadline = market.tick(later.plusSeconds(60));
        assertThat(events(atDeadline, MarketEvent.GangRevoked.class)).extracting(MarketEvent.GangRevoked::requeuedAs)
                .containsExactly("a#2");
        assertThat(b.grantedNodes()).isEqualTo(2);
        assertThat(b.lockedRate()).as("a did not fit after b, so b's limit is the lowest accepted")
                .isEqualTo(Money.parse("3.00"));
        assertThat(market.openRequest("a").reason()).isEqualTo(Reason.OUTBID);
    }

    @Test
    void aNoticeIsRescindedWhenTheDemandGoesAwayWithinIt() {
        MarketRequest a = file("a", "acme-c", 4, null);
        market.tick(T0);
        Instant later = at(Duration.ofHours(3));
        market.file(new JobDemand("b", "beta-c", POOL, 8, null, PriorityClass.NONE), later);
        market.tick(later);
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);

        market.endJob("b", later.plusSeconds(20));
        TickOutcome o = market.tick(later.plusSeconds(30));

        assertThat(events(o, MarketEvent.ReclaimRescinded.class)).extracting(MarketEvent.ReclaimRescinded::requestId)
                .containsExactly("a");
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(a.grantedNodes()).isEqualTo(4);
        assertThat(a.noticeDeadline()).isNull();
    }

    @Test
    void aProtectedGangKeepsItsNodesAgainstAnyBid() {
        MarketRequest a = file("a", "acme-c", 4, null);
        market.tick(T0);
        MarketRequest b = market.file(new JobDemand("b", "beta-c", POOL, 8, Money.parse("50"), PriorityClass.NONE),
                at(Duration.ofMinutes(30)));
        TickOutcome o = market.tick(at(Duration.ofMinutes(30)));
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(events(o, MarketEvent.PreemptionNoticed.class)).isEmpty();
        assertThat(b.reason()).isEqualTo(Reason.PENDING_SUPPLY);
    }

    @Test
    void loweringTheLimitVoidsTheWindowAndTheReclaimIsAtOnceAndTheWinnerTakesTheNodesThatTick() {
        MarketRequest a = file("a", "acme-c", 4, null);
        market.tick(T0);
        Instant t = at(Duration.ofMinutes(30));
        market.setClusterLimit("acme-c", Money.parse("1.50"));
        MarketRequest b = market.file(new JobDemand("b", "beta-c", POOL, 32, null, PriorityClass.NONE), t);
        TickOutcome o = market.tick(t);

        MarketEvent.GangReclaimedAtOnce reclaim = events(o, MarketEvent.GangReclaimedAtOnce.class).get(0);
        assertThat(reclaim.cause()).isEqualTo(ReclaimCause.LIMIT_LOWERED);
        assertThat(events(o, MarketEvent.PreemptionNoticed.class)).isEmpty();
        assertThat(a.phase()).isEqualTo(RequestPhase.REVOKED);
        assertThat(b.grantedNodes()).isEqualTo(4);
        assertThat(b.lockedRate()).isEqualTo(Money.parse("3.00"));
    }

    @Test
    void aLimitBelowAReservedRaisedPastItIsReclaimedAtOnceEvenInsideItsWindowOnlyOnceTheWindowVoids() {
        MarketRequest a = file("a", "acme-c", 1, null);
        market.tick(T0);
        market.changeReserve(POOL, Money.parse("2.50"));
        market.tick(at(Duration.ofMinutes(10)));
        assertThat(a.phase()).as("protected: the window holds at an unchanged limit").isEqualTo(RequestPhase.ADMITTED);
        TickOutcome o = market.tick(at(Duration.ofHours(2)));
        assertThat(events(o, MarketEvent.GangReclaimedAtOnce.class)).extracting(MarketEvent.GangReclaimedAtOnce::cause)
                .containsExactly(ReclaimCause.LIMIT_BELOW_RESERVE);
        assertThat(market.openRequest("a").reason()).isIn(Reason.PENDING, Reason.BID_TOO_LOW);
    }

    @Test
    void billingIsTheLockedRateInsideTheWindowThenTheTicksPriceAndAReplayBillsNothingTwice() {
        MarketRequest a = file("a", "acme-c", 1, "5.00");
        file("b", "beta-c", 1, null);
        market.tick(T0);   // price 3.00 (the lowest accepted), locked
        TickOutcome hour = market.tick(at(Duration.ofHours(1)));
        assertThat(hour.charges()).hasSize(2).allSatisfy(c -> {
            assertThat(c.rate()).isEqualTo(Money.parse("3.00"));
            assertThat(c.amount()).isEqualTo(Money.parse("24.00"));
            assertThat(c.locked()).isTrue();
        });
        assertThat(market.tick(at(Duration.ofHours(1))).charges()).as("replay of the same tick").isEmpty();

        market.endJob("b", at(Duration.ofHours(1)));
        market.tick(at(Duration.ofMinutes(61)));
        TickOutcome windowEnd = market.tick(at(Duration.ofHours(2)));
        assertThat(windowEnd.charges()).filteredOn(c -> c.clusterId().equals("acme-c"))
                .extracting(Charge::locked, Charge::rate, Charge::to)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(true, Money.parse("3.00"), a.protectedUntil()));
        assertThat(windowEnd.feed().get(0).price()).as("a lone bidder clears at its own limit")
                .isEqualTo(Money.parse("5.00"));
        TickOutcome after = market.tick(at(Duration.ofHours(3)));
        assertThat(after.charges()).filteredOn(c -> c.clusterId().equals("acme-c"))
                .extracting(Charge::locked, Charge::rate, Charge::amount)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(false, Money.parse("5.00"), Money.parse("40.00")));
    }

    @Test
    void anEndedJobsNodeStaysForTheHoldThenTheIdleGraceUnlessItsClusterTakesItFirst() {
        MarketRequest a = file("a", "acme-c", 2, null);
        market.tick(T0);
        market.endJob("a", at(Duration.ofMinutes(10)));
        market.tick(at(Duration.ofMinutes(30)));
        assertThat(market.freeNodes(POOL)).isEqualTo(2);
        assertThat(market.liveGrants()).hasSize(2).allMatch(NodeGrant::idle);

        Instant t = at(Duration.ofMinutes(40));
        MarketRequest next = market.file(new JobDemand("next", "acme-c", POOL, 8, null, PriorityClass.NONE), t);
        MarketRequest other = market.file(new JobDemand("other", "beta-c", POOL, 24, null, PriorityClass.NONE), t);
        TickOutcome o = market.tick(t);
        assertThat(next.grantedNodeIds()).containsExactly("n1");
        assertThat(other.grantedNodes()).as("the idle node is the cluster's, not supply").isZero();
        assertThat(market.liveGrants()).hasSize(2);

        TickOutcome release = market.tick(at(Duration.ofMinutes(61)));
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

        market.tick(T0);
        market.endJob("first", at(Duration.ofMinutes(5)));
        market.tick(at(Duration.ofMinutes(5)));
        assertThat(high.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(low.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(huge.phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(huge.message()).contains("more than the max cluster size");
    }

    @Test
    void subNodeRequestsPackOntoTheBlockAndNeverBid() {
        market.assignBlock("acme-c", "n4");
        MarketRequest s1 = market.file(new JobDemand("s1", "acme-c", POOL, 4, null, PriorityClass.LOW), T0);
        MarketRequest s2 = market.file(new JobDemand("s2", "acme-c", POOL, 4, null, PriorityClass.NONE), T0);
        MarketRequest s3 = market.file(new JobDemand("s3", "acme-c", POOL, 2, null, PriorityClass.HIGH), T0);
        MarketRequest noBlock = market.file(new JobDemand("nb", "beta-c", POOL, 2, null, PriorityClass.HIGH), T0);
        TickOutcome o = market.tick(T0);
        assertThat(o.feed().get(0).supply()).isEqualTo(3);
        assertThat(s3.phase()).isEqualTo(RequestPhase.SEATED);
        assertThat(s1.phase()).isEqualTo(RequestPhase.SEATED);
        assertThat(s2.reason()).isEqualTo(Reason.BLOCK_WAIT);
        assertThat(noBlock.reason()).isEqualTo(Reason.BLOCK_WAIT);
        assertThat(o.feed().get(0).price()).isNull();
        market.endJob("s3", at(Duration.ofMinutes(1)));
        market.tick(at(Duration.ofMinutes(1)));
        assertThat(s2.blockNodeId()).as("4 GPUs free once s3 ends").isEqualTo("n4");
        assertThat(noBlock.phase()).isEqualTo(RequestPhase.QUEUED);
    }

    @Test
    void aNodeTakenOutOfServiceStopsBillingAndItsReplacementInheritsTheLockedRateAndWindow() {
        market.removeNode("n4", T0);
        MarketRequest a = file("a", "acme-c", 2, null);
        market.tick(T0);
        market.file(new JobDemand("b", "beta-c", POOL, 8, null, PriorityClass.NONE), T0);
        assertThat(a.lockedRate()).isEqualTo(Money.parse("2.00"));
        Instant fail = at(Duration.ofMinutes(20));
        market.nodeOutOfService("n1", fail);
        assertThat(market.cluster("acme-c").claimsOwed(POOL)).isEqualTo(1);
        TickOutcome o = market.tick(at(Duration.ofMinutes(30)));

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
    void aTenantWhoseBalanceCannotFundTwoHoursWaitsWithBalanceTooLowAndATopUpClearsIt() {
        market.addTenant("poor", Money.usd(10));
        market.addCluster("poor-c", "poor", 64, Money.parse("2.00"));
        MarketRequest p = market.file(new JobDemand("p", "poor-c", POOL, 8, null, PriorityClass.NONE), T0);
        market.tick(T0);
        assertThat(p.reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
        assertThat(p.message()).contains("32.00");
        market.credit("poor", Money.usd(30));
        market.tick(at(Duration.ofSeconds(10)));
        assertThat(p.phase()).isEqualTo(RequestPhase.ADMITTED);
    }

    @Test
    void raisingTheLimitWithinTheNoticeRescindsTheReclaim() {
        MarketRequest a = file("a", "acme-c", 4, null);
        market.tick(T0);
        Instant t = at(Duration.ofHours(3));
        market.file(new JobDemand("b", "beta-c", POOL, 8, null, PriorityClass.NONE), t);
        market.tick(t);
        assertThat(a.phase()).isEqualTo(RequestPhase.RECLAIMING);

        market.setJobLimit("a", Money.parse("3.50"));
        TickOutcome o = market.tick(t.plusSeconds(50));
        assertThat(events(o, MarketEvent.ReclaimRescinded.class)).hasSize(1);
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        assertThat(a.protectedUntil()).as("raising never resets the window").isEqualTo(at(Duration.ofHours(2)));
        assertThat(market.openRequest("b").reason()).isEqualTo(Reason.OUTBID);
        assertThat(o.feed().get(0).price()).as("a alone is accepted: its own limit").isEqualTo(Money.parse("3.50"));
    }

    @Test
    void aGangWhoseBalanceRanOutIsReclaimedAtOnceOnceOutsideItsWindowNeverInside() {
        market.addTenant("thin", Money.usd(70));
        market.addCluster("thin-c", "thin", 64, Money.parse("2.00"));
        MarketRequest a = market.file(new JobDemand("a", "thin-c", POOL, 8, null, PriorityClass.NONE), T0);
        market.tick(T0);                              // 8 GPUs x 2.00 = 16 USD an hour
        market.tick(at(Duration.ofMinutes(90)));      // 24 USD billed
        market.tick(at(Duration.ofMinutes(119)));
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        // [2h, 2h30m) bills at the reserve (1.00): the tick at 1h59m had no price (a was protected, no bidder)
        market.tick(at(Duration.ofMinutes(150)));     // 36 USD by now; window over, balance still positive
        assertThat(a.phase()).isEqualTo(RequestPhase.ADMITTED);
        TickOutcome o = market.tick(at(Duration.ofMinutes(285)));   // + 2h15m at 2.00 = 72 USD: ran out
        assertThat(market.tenant("thin").balanceMicros()).isNegative();
        assertThat(events(o, MarketEvent.GangReclaimedAtOnce.class)).extracting(MarketEvent.GangReclaimedAtOnce::cause)
                .containsExactly(ReclaimCause.BALANCE_RAN_OUT);
        assertThat(market.openRequest("a").reason()).as("requeued, not read yet").isEqualTo(Reason.PENDING);
        market.tick(at(Duration.ofMinutes(286)));
        assertThat(market.openRequest("a").reason()).isEqualTo(Reason.BALANCE_TOO_LOW);
    }

    @Test
    void aJobLargerThanOneNodeMustAskForWholeNodes() {
        assertThatThrownBy(() -> market.file(new JobDemand("x", "acme-c", POOL, 12, null, PriorityClass.NONE), T0))
                .isInstanceOfSatisfying(DomainException.class,
                        e -> assertThat(e.details().get("reason")).isEqualTo("JobSizeNotNodeAligned"));
    }
}
