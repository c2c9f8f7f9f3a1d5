package com.bettercompute.application.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.application.fakes.InMemoryEventOutbox;
import com.bettercompute.application.fakes.InMemoryMarketFeed;
import com.bettercompute.application.fakes.InMemoryMarketLedger;
import com.bettercompute.application.fakes.InMemoryMarketRepository;
import com.bettercompute.application.fakes.InMemoryStore;
import com.bettercompute.application.fakes.InMemoryTransactions;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import com.bettercompute.domain.market.TickOutcome;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The market's use cases on in-memory ports and a clock moved by hand. */
class MarketUseCasesTest {
    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final PoolId POOL = PoolId.parse("eu-west/h100-8x");

    private final MutableClock clock = new MutableClock(T0);
    private final InMemoryStore store = new InMemoryStore();
    private final InMemoryMarketRepository markets = new InMemoryMarketRepository(store, clock);
    private final InMemoryMarketLedger ledger = new InMemoryMarketLedger(store);
    private final InMemoryMarketFeed feed = new InMemoryMarketFeed(store);
    private final RecordingMarketEffects effects = new RecordingMarketEffects();
    private final InMemoryTransactions tx = new InMemoryTransactions(store);
    private final InMemoryEventOutbox outbox = new InMemoryEventOutbox(store);
    private RunMarketTick tick;

    @BeforeEach
    void setUp() {
        Market market = markets.load();
        market.addPool(POOL, 8, Money.parse("1.20"));
        market.addNode("n1", POOL);
        market.addNode("n2", POOL);
        market.addTenant("acme", Money.usd(10_000));
        market.addTenant("beta", Money.usd(10_000));
        market.addCluster("acme-c", "acme", 64, null);
        market.addCluster("beta-c", "beta", 64, null);
        markets.save(market);
        tick = new RunMarketTick(tx, markets, ledger, feed, outbox,
                effects, clock);
    }

    /** A tick, then every node it granted reports ready at once, as the clusters would. */
    private TickOutcome tickAndReady() {
        TickOutcome outcome = tick.run();
        for (MarketEvent e : outcome.events()) {
            if (e instanceof MarketEvent.NodeGranted g) {
                new ReportNodeReady(tx, markets, outbox, effects, clock).report(new ReportNodeReady.Command(g.nodeId()));
            }
        }
        return outcome;
    }

    private RequestView file(String job, String cluster, int gpus, String limit) {
        return new FileMarketRequest(tx, markets, outbox, clock).file(
                new FileMarketRequest.Command(job, cluster, POOL.toString(), gpus, limit, null));
    }

    @Test
    void withNoLimitSetJobsBidZeroAndReadBidTooLowUntilALimitIsDeclared() {
        RequestView filed = file("train", "acme-c", 8, null);
        assertThat(filed.reason()).isEqualTo("Pending");
        tickAndReady();
        assertThat(new ReadMarketRequest(markets).read("train").reason()).isEqualTo("BidTooLow");
        assertThat(feed.latest(POOL, 1)).extracting(PoolTick::price).containsOnlyNulls();

        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        clock.advance(Duration.ofSeconds(5));
        tickAndReady();

        RequestView running = new ReadMarketRequest(markets).read("train");
        assertThat(running.reason()).isEqualTo("Provisioned");
        assertThat(running.lockedRate()).isEqualTo(Money.parse("2.00"));
        assertThat(effects.applied(MarketEvent.NodeGranted.class)).hasSize(1);
        assertThat(feed.latest(POOL, 1).get(0))
                .extracting(PoolTick::price, PoolTick::supply, PoolTick::free, PoolTick::granted)
                .containsExactly(Money.parse("2.00"), 2, 1, 1);
    }

    @ParameterizedTest(name = "limit {0} against reserve 1.20 -> refused {1}")
    @CsvSource({"0, true", "1.19, true", "1.20, false", "3, false"})
    void aLimitBelowTheReserveIsRefusedAtWriteTime(String limit, boolean refused) {
        SetLimitPrice set = new SetLimitPrice(tx, markets);
        if (refused) {
            assertThatThrownBy(() -> set.set(new SetLimitPrice.Command("acme-c", null, limit)))
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
                        assertThat(e.details()).containsEntry("reason", "bid-too-low").containsEntry("reserve", "1.20");
                    });
            assertThat(markets.load().cluster("acme-c").limit()).isNull();
        } else {
            assertThat(set.set(new SetLimitPrice.Command("acme-c", null, limit)).bidTooLow()).isFalse();
            assertThat(markets.load().cluster("acme-c").limit()).isEqualTo(Money.parse(limit));
        }
    }

    @Test
    void aStandingLimitThatARaisedReservePassedReadsBidTooLowAndItsRequestsWait() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "1.50"));
        file("train", "acme-c", 8, null);
        new ChangeReservePrice(tx, markets).change(new ChangeReservePrice.Command(POOL.toString(), "1.80"));

        LimitPriceView read = new ReadLimitPrice(markets).read(new ReadLimitPrice.Query("acme-c", null));
        assertThat(read.bidTooLow()).isTrue();
        assertThat(read.reserve()).isEqualTo(Money.parse("1.80"));
        tickAndReady();
        assertThat(new ReadMarketRequest(markets).read("train").reason()).isEqualTo("BidTooLow");
    }

    @Test
    void aJobsOwnLimitIsCheckedAgainstItsPoolAndWithdrawingItFallsBackToTheClusters() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        file("train", "acme-c", 8, "0");
        tickAndReady();
        assertThat(new ReadMarketRequest(markets).read("train").reason()).as("0 is a real zero").isEqualTo("BidTooLow");
        assertThatThrownBy(() -> new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", "train", "1")))
                .isInstanceOfSatisfying(DomainException.class,
                        e -> assertThat(e.details()).containsEntry("reason", "bid-too-low"));

        new WithdrawLimitPrice(tx, markets).withdraw(new WithdrawLimitPrice.Command("acme-c", "train"));
        clock.advance(Duration.ofSeconds(5));
        tickAndReady();
        assertThat(new ReadMarketRequest(markets).read("train").limit()).isEqualTo(Money.parse("2.00"));
        assertThat(new ReadMarketRequest(markets).read("train").grantedNodes()).isEqualTo(1);
    }

    @Test
    void chargesReachTheLedgerOnceEvenWhenATickIsReplayed() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        file("train", "acme-c", 16, null);
        tickAndReady();
        clock.advance(Duration.ofMinutes(60));
        TickOutcome hour = tickAndReady();

        assertThat(hour.charges()).as("each node's entry closes on the hour").hasSize(2);
        assertThat(ledger.chargedTo("acme")).isEqualTo(Money.parse("32.00"));
        assertThat(ledger.record(hour.charges())).as("the same charges replayed").isZero();
        assertThat(ledger.chargedTo("acme")).isEqualTo(Money.parse("32.00"));
        assertThat(markets.load().tenant("acme").balanceMicros()).isEqualTo(Money.usd(10_000).micros() - 32_000_000);
    }

    @Test
    void anEndedJobsNodesStayUntilTheHoldThenTheIdleGraceAndWithdrawLeavesTheQueue() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        file("train", "acme-c", 8, null);
        tickAndReady();
        clock.advance(Duration.ofMinutes(10));
        new ReportJobEnded(tx, markets, outbox, clock).report(new ReportJobEnded.Command("train"));
        clock.advance(Duration.ofMinutes(50));
        tickAndReady();
        assertThat(effects.applied(MarketEvent.NodeReleased.class)).extracting(MarketEvent.NodeReleased::nodeId)
                .containsExactly("n1");

        file("queued", "acme-c", 8, "0");
        new WithdrawMarketRequest(tx, markets, outbox, clock).withdraw(new WithdrawMarketRequest.Command("queued"));
        assertThatThrownBy(() -> new ReadMarketRequest(markets).read("queued"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void aNodeOutOfServiceIsReplacedAtTheLockedRateAndComesBackAsIdleCapacity() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        file("train", "acme-c", 8, null);
        tickAndReady();
        String node = new ReadMarketRequest(markets).read("train").nodeIds().get(0);
        clock.advance(Duration.ofMinutes(15));
        new ReportNodeOutOfService(tx, markets, outbox, clock).report(new ReportNodeOutOfService.Command(node));
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "1.50"));
        clock.advance(Duration.ofSeconds(5));
        tickAndReady();

        MarketEvent.NodeGranted replacement = effects.applied(MarketEvent.NodeGranted.class).get(1);
        assertThat(replacement.replacement()).isTrue();
        assertThat(replacement.nodeId()).isNotEqualTo(node);
        assertThat(replacement.lockedRate()).isEqualTo(Money.parse("2.00"));
        assertThat(replacement.protectedUntil()).isEqualTo(T0.plus(Duration.ofHours(2)));

        new ReportNodeBack(tx, markets, outbox, clock).report(new ReportNodeBack.Command(node));
        assertThat(markets.load().node(node).grant().idle()).isTrue();
    }

    @Test
    void outbidWithNoticeReachesTheClusterWithItsDeadline() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("beta-c", null, "3.00"));
        file("a", "acme-c", 16, null);
        tickAndReady();
        clock.advance(Duration.ofHours(2));
        file("b", "beta-c", 8, null);
        tickAndReady();

        MarketEvent.PreemptionNoticed notice = effects.applied(MarketEvent.PreemptionNoticed.class).get(0);
        assertThat(notice.jobId()).isEqualTo("a");
        assertThat(notice.deadline()).isEqualTo(clock.instant().plusSeconds(60));
        assertThat(notice.nodeIds()).containsExactly("n1", "n2");
        assertThat(new ReadMarketRequest(markets).read("a").reason()).isEqualTo("MarketPreemption");
    }

    @Test
    void aGangIsProvisionedWhenItsLastNodeIsReadyAndTheClusterHearsItAtOnce() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        file("train", "acme-c", 16, null);
        tick.run();
        assertThat(new ReadMarketRequest(markets).read("train").reason()).isEqualTo("Provisioning");
        ReportNodeReady ready = new ReportNodeReady(tx, markets, outbox, effects, clock);
        clock.advance(Duration.ofMinutes(3));
        ready.report(new ReportNodeReady.Command("n1"));
        assertThat(effects.applied(MarketEvent.GangProvisioned.class)).isEmpty();
        clock.advance(Duration.ofMinutes(2));
        ready.report(new ReportNodeReady.Command("n2"));

        assertThat(effects.applied(MarketEvent.GangProvisioned.class)).hasSize(1);
        RequestView view = new ReadMarketRequest(markets).read("train");
        assertThat(view.reason()).isEqualTo("Provisioned");
        assertThat(markets.load().node("n2").grant().protectedUntil())
                .isEqualTo(T0.plus(Duration.ofMinutes(5)).plus(Duration.ofHours(2)));
    }

    @Test
    void aGrantedNodeThatLeavesTheClusterRevokesItsGangAndRequeuesTheJob() {
        new SetLimitPrice(tx, markets).set(new SetLimitPrice.Command("acme-c", null, "2.00"));
        file("train", "acme-c", 16, null);
        tickAndReady();
        clock.advance(Duration.ofMinutes(10));
        new ReportNodeLeft(tx, markets, outbox, clock).report(new ReportNodeLeft.Command("n1"));
        tick.run();

        assertThat(effects.applied(MarketEvent.GangRevoked.class)).extracting(MarketEvent.GangRevoked::requeuedAs)
                .containsExactly("train#2");
        assertThat(markets.load().cluster("acme-c").claimsOwed(POOL)).isZero();
    }

    @ParameterizedTest(name = "label {0} -> {1}")
    @CsvSource({"-1, negative", "100000.5, limit-too-high", "2.1234567, too-many-decimals", "cheap, not-a-number"})
    void aJobLimitLabelTheTickCouldNotReadIsRefusedWhenTheRequestIsFiled(String label, String reason) {
        assertThatThrownBy(() -> file("train", "acme-c", 8, label))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
                    assertThat(e.details()).containsEntry("reason", reason)
                            .containsEntry("field", "nationalcompute.com/limit-price");
                });
        assertThat(markets.load().hasOpenRequest("train")).isFalse();
        tick.run();
    }
}
