package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.MarketRepository.Episode;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import com.bettercompute.domain.market.PriorityClass;
import com.bettercompute.domain.market.TickOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the market's stores must do — {@link MarketRepository}, {@link MarketLedger}, {@link MarketFeed},
 * together in one transaction; run against the in-memory fakes, H2 and PostgreSQL.
 */
abstract class MarketStoreContract extends PortsContract {
    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    static final PoolId EU = PoolId.parse("eu-west/h100-8x");
    static final PoolId US = PoolId.parse("us-east/a100-4x");

    /**
     * A market with something of everything the snapshot holds: two pools, a base load block, gangs
     * running (ready, protected, idle after their job ended), one under notice, waiting and queued requests,
     * a node out of service with a replacement owed, events filed between ticks, charges billed.
     */
    static Market busyMarket(Market m) {
        m.addPool(EU, 8, Money.parse("1.20"));
        m.addPool(US, 4, Money.parse("0.50"));
        for (int i = 0; i < 6; i++) {
            m.addNode("eu-" + i, EU);
        }
        for (int i = 0; i < 3; i++) {
            m.addNode("us-" + i, US);
        }
        m.addTenant("acme", Money.usd(10_000));
        m.addTenant("beta", Money.usd(20_000));
        m.addCluster("acme-c", "acme", 64, Money.parse("2.00"));
        m.addCluster("beta-c", "beta", 24, null);
        m.assignBlock("beta-c", "us-2");
        m.blockNodeReady("us-2", T0);
        m.file(new JobDemand("j1", "acme-c", EU, 16, null, PriorityClass.NONE), T0);
        m.file(new JobDemand("j2", "acme-c", EU, 8, Money.parse("3.000001"), PriorityClass.fromLabel("high")), T0);
        m.file(new JobDemand("j3", "beta-c", US, 2, null, PriorityClass.NONE), T0);
        m.file(new JobDemand("j4", "beta-c", US, 4, Money.parse("0.75"), PriorityClass.fromLabel("low")), T0);
        tickReady(m, T0);
        Instant t1 = T0.plus(Duration.ofHours(3));
        m.file(new JobDemand("j5", "beta-c", EU, 16, Money.parse("9.00"), PriorityClass.NONE), t1);
        m.file(new JobDemand("j6", "beta-c", EU, 16, Money.parse("0.10"), PriorityClass.NONE), t1);
        tickReady(m, t1);
        m.endJob("j4", t1.plusSeconds(10));
        m.nodeOutOfService("eu-0", t1.plusSeconds(20));
        m.file(new JobDemand("j7", "acme-c", US, 4, Money.parse("1.00"), PriorityClass.NONE), t1.plusSeconds(30));
        return m;
    }

    static TickOutcome tickReady(Market m, Instant at) {
        TickOutcome o = m.tick(at);
        for (MarketEvent e : o.events()) {
            if (e instanceof MarketEvent.NodeGranted g) {
                m.nodeReady(g.nodeId(), at);
            }
        }
        return o;
    }

    private Market saved(Market m) {
        ports.transactions().inTransaction(() -> {
            ports.markets().save(m);
            return null;
        });
        return m;
    }

    @Test
    void nothing_saved_loads_an_empty_market_with_the_standard_timings() {
        MarketSnapshot empty = ports.markets().load().snapshot();

        assertThat(empty.timings()).isEqualTo(MarketTimings.standard());
        assertThat(empty.pools()).isEmpty();
        assertThat(empty.requests()).isEmpty();
        assertThat(empty.lastTick()).isNull();
    }

    @Test
    void a_saved_market_loads_back_equal_here_and_in_another_replica() {
        Market m = saved(busyMarket(ports.markets().load()));
        MarketSnapshot expected = m.snapshot();
        assertThat(expected.requests()).extracting(MarketSnapshot.RequestState::phase).hasSizeGreaterThan(4);
        assertThat(expected.idleOrder()).isNotEmpty();
        assertThat(expected.betweenTicks()).isNotEmpty();

        assertThat(ports.markets().load().snapshot()).isEqualTo(expected);
        assertThat(ports.anotherMarketRepository().get().load().snapshot()).isEqualTo(expected);
    }

    @Test
    void the_version_changes_at_each_save_by_any_replica_and_holds_between() {
        MarketRepository other = ports.anotherMarketRepository().get();
        saved(busyMarket(ports.markets().load()));
        long first = ports.markets().version();
        assertThat(other.version()).as("read by another replica").isEqualTo(first);
        assertThat(ports.markets().version()).as("nothing saved since").isEqualTo(first);

        Market again = other.load();
        again.changeCluster("beta-c", 32, true, T0);
        other.save(again);

        assertThat(ports.markets().version()).as("another replica saved").isNotEqualTo(first);
    }

    @Test
    void each_save_after_changes_loads_back_equal_in_another_replica() {
        MarketRepository markets = ports.markets();
        Market m = saved(busyMarket(markets.load()));
        Instant t = m.lastTick();
        for (int i = 1; i <= 8; i++) {
            Market next = markets.load();
            t = t.plusSeconds(i % 3 == 0 ? 1_800 : 45);
            if (i == 2) {
                next.setClusterLimit("beta-c", Money.parse("12.00"));
            }
            if (i == 4) {
                next.nodeBack("eu-0", t);
                next.changeReserve(US, Money.parse("0.80"));
            }
            if (i == 5) {
                next.endJob("j2", t);
                next.credit("acme", Money.usd(5));
            }
            tickReady(next, t);
            saved(next);
            assertThat(ports.anotherMarketRepository().get().load().snapshot()).as("save %d", i)
                    .isEqualTo(next.snapshot());
        }
    }

    @Test
    void the_operators_cluster_settings_block_removal_and_timings_load_back_equal_in_another_replica() {
        MarketRepository markets = ports.markets();
        Market m = saved(busyMarket(markets.load()));
        Instant t = m.lastTick();
        String cluster = m.clusters().iterator().next().id();

        Market next = markets.load();
        next.changeCluster(cluster, 96, true, t);
        next.setClusterLimit(cluster, Money.parse("3.25"), t);
        next.changeTimings(new MarketTimings(Duration.ofMinutes(2), Duration.ofMinutes(4),
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofHours(1),
                Duration.ofSeconds(60), Duration.ofSeconds(60)));
        saved(next);
        MarketSnapshot loaded = ports.anotherMarketRepository().get().load().snapshot();
        assertThat(loaded).isEqualTo(next.snapshot());
        assertThat(loaded.clusters()).filteredOn(c -> c.id().equals(cluster)).singleElement().satisfies(c -> {
            assertThat(c.packing()).isTrue();
            assertThat(c.limitSetAt()).isEqualTo(t);
        });
        assertThat(loaded.timings().notice()).isEqualTo(Duration.ofSeconds(5));

        Market empty = markets.load();
        empty.addCluster("gamma-c", empty.clusters().iterator().next().tenantId(), 8, null);
        saved(empty);
        Market removed = markets.load();
        removed.removeCluster("gamma-c");
        saved(removed);
        assertThat(ports.anotherMarketRepository().get().load().snapshot()).isEqualTo(removed.snapshot());
        assertThat(ports.anotherMarketRepository().get().load().hasCluster("gamma-c")).isFalse();
    }

    @Test
    void a_market_loaded_before_another_save_is_refused_and_writes_nothing() {
        Market first = saved(busyMarket(ports.markets().load()));
        Market a = ports.markets().load();
        Market b = ports.markets().load();
        a.credit("acme", Money.usd(1));
        ports.markets().save(a);
        b.credit("beta", Money.usd(1));

        assertThatThrownBy(() -> ports.markets().save(b)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        MarketSnapshot now = ports.anotherMarketRepository().get().load().snapshot();
        assertThat(now).isEqualTo(a.snapshot());
        assertThat(now.tenants()).filteredOn(t -> t.id().equals("beta"))
                .extracting(MarketSnapshot.TenantState::creditsMicros)
                .containsExactly(first.snapshot().tenants().get(1).creditsMicros());
    }

    @Test
    void a_market_the_repository_did_not_load_is_refused() {
        assertThatThrownBy(() -> ports.markets().save(new Market())).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE));
    }

    @Test
    void a_transaction_that_fails_after_the_save_leaves_market_ledger_feed_and_credits_as_they_were() {
        Market before = saved(busyMarket(ports.markets().load()));
        MarketSnapshot expected = before.snapshot();
        IllegalStateException boom = new IllegalStateException("after the save");

        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            Market m = ports.markets().load();
            TickOutcome o = m.tick(expected.lastTick().plusSeconds(600));
            ports.marketLedger().record(o.charges());
            ports.markets().save(m);
            ports.marketFeed().append(o.feed());
            ports.marketLedger().credit(new MarketLedger.CreditTopUp("acme", "k1", Money.usd(3), null, T0));
            throw boom;
        })).isSameAs(boom);

        assertThat(ports.markets().load().snapshot()).isEqualTo(expected);
        assertThat(ports.anotherMarketRepository().get().load().snapshot()).isEqualTo(expected);
        assertThat(ports.marketLedger().latest("acme", 10)).isEmpty();
        assertThat(ports.marketFeed().after(0, null, 10)).isEmpty();
        assertThat(ports.marketLedger().credit(new MarketLedger.CreditTopUp("acme", "k1", Money.usd(3), null, T0)))
                .isTrue();
    }

    @Test
    void writers_in_transactions_queue_and_lose_none_of_each_others_changes() throws Exception {
        Market m = ports.markets().load();
        m.addTenant("acme", Money.ZERO);
        saved(m);
        int writers = 6;
        int each = 10;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CyclicBarrier start = new CyclicBarrier(writers);
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                done.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < each; i++) {
                        ports.transactions().inTransaction(() -> {
                            Market mine = ports.markets().load();
                            mine.credit("acme", Money.usd(1));
                            ports.markets().save(mine);
                            return null;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(ports.anotherMarketRepository().get().load().tenant("acme").credits())
                .isEqualTo(Money.usd((long) writers * each));
    }

    @Test
    void episodes_keep_every_attempt_with_when_it_queued_ran_and_ended() {
        Market m = ports.markets().load();
        m.addPool(EU, 8, Money.parse("1.00"));
        m.addNode("n1", EU);
        m.addTenant("acme", Money.usd(1_000));
        m.addTenant("beta", Money.usd(1_000));
        m.addCluster("acme-c", "acme", 64, Money.parse("2.00"));
        m.addCluster("beta-c", "beta", 64, Money.parse("2.00"));
        m.file(new JobDemand("train", "acme-c", EU, 8, null, PriorityClass.NONE), T0);
        saved(m);
        ports.clock().set(T0.plusSeconds(5));
        Market ticked = ports.markets().load();
        tickReady(ticked, T0.plusSeconds(5));
        saved(ticked);
        // the node leaves the cluster: the gang is revoked and the job requeues as attempt 2. Each change is saved a
        // moment after the market decided it: an attempt ends at the decision's instant, where its successor begins.
        ports.clock().set(T0.plusSeconds(61));
        Market left = ports.markets().load();
        left.removeNode("n1", T0.plusSeconds(60));
        saved(left);
        ports.clock().set(T0.plusSeconds(92));
        Market ended = ports.markets().load();
        ended.endJob("train", T0.plusSeconds(90));
        ended.file(new JobDemand("train", "acme-c", EU, 8, null, PriorityClass.NONE), T0.plusSeconds(90));
        saved(ended);

        assertThat(ports.markets().episodes("acme-c")).containsExactly(
                new Episode("train", "train", 1, "acme-c", EU.toString(), T0, T0.plusSeconds(5),
                        T0.plusSeconds(60), Episode.REVOKED),
                new Episode("train#2", "train", 2, "acme-c", EU.toString(), T0.plusSeconds(60), null,
                        T0.plusSeconds(90), Episode.ENDED),
                new Episode("train#3", "train", 3, "acme-c", EU.toString(), T0.plusSeconds(90), null, null, null));
        assertThat(ports.markets().episodes("beta-c")).isEmpty();

        // the attempts that left, latest first, each as it left; bounded by the caller's limit
        assertThat(ports.markets().closed("acme-c", 10)).extracting(c -> c.last().id(), c -> c.last().phase(),
                        c -> c.last().reason(), MarketRepository.Closed::endedAt, MarketRepository.Closed::end)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("train#2", com.bettercompute.domain.market.RequestPhase.CLOSED,
                                com.bettercompute.domain.market.Reason.PENDING, T0.plusSeconds(90), Episode.ENDED),
                        org.assertj.core.groups.Tuple.tuple("train", com.bettercompute.domain.market.RequestPhase.REVOKED,
                                com.bettercompute.domain.market.Reason.MARKET_REVOKED, T0.plusSeconds(60),
                                Episode.REVOKED));
        assertThat(ports.markets().closed("acme-c", 1)).extracting(c -> c.last().id()).containsExactly("train#2");
        assertThat(ports.markets().closed("beta-c", 10)).isEmpty();
    }

    @Test
    void a_job_filed_again_after_a_restart_gets_a_new_request_id_and_its_ended_requests_keep_their_rows() {
        Market m = ports.markets().load();
        m.addPool(EU, 8, Money.parse("1.00"));
        m.addTenant("acme", Money.usd(1_000));
        m.addCluster("acme-c", "acme", 64, Money.parse("2.00"));
        m.file(new JobDemand("train", "acme-c", EU, 8, null, PriorityClass.NONE), T0);
        saved(m);
        Market ending = ports.markets().load();
        ending.endJob("train", T0.plusSeconds(30));
        // filed and ended between two saves: its row is written closed all the same
        ending.file(new JobDemand("eval", "acme-c", EU, 8, null, PriorityClass.NONE), T0.plusSeconds(30));
        ending.endJob("eval", T0.plusSeconds(30));
        saved(ending);
        List<MarketRepository.Closed> closedBefore = ports.markets().closed("acme-c", 10);

        // another replica (a restart) reads the rows: the ids the job ids had stay used
        Market restarted = ports.anotherMarketRepository().get().load();
        assertThat(restarted.snapshot().endedAttempts()).isEqualTo(Map.of("train", 1, "eval", 1));
        assertThat(restarted.snapshot()).isEqualTo(ports.markets().load().snapshot());
        Market again = ports.markets().load();
        String refiled = again.file(new JobDemand("train", "acme-c", EU, 8, null, PriorityClass.NONE),
                T0.plusSeconds(60)).id();
        String evalAgain = again.file(new JobDemand("eval", "acme-c", EU, 8, null, PriorityClass.NONE),
                T0.plusSeconds(60)).id();
        saved(again);

        assertThat(refiled).isEqualTo("train#2");
        assertThat(evalAgain).isEqualTo("eval#2");
        assertThat(ports.markets().closed("acme-c", 10)).as("the ended requests as they left").isEqualTo(closedBefore);
        assertThat(ports.markets().episodes("acme-c")).extracting(Episode::requestId, Episode::end)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("train", Episode.ENDED),
                        org.assertj.core.groups.Tuple.tuple("eval", Episode.ENDED),
                        org.assertj.core.groups.Tuple.tuple("train#2", null),
                        org.assertj.core.groups.Tuple.tuple("eval#2", null));
        assertThat(ports.anotherMarketRepository().get().load().openRequests()).extracting(MarketRequest::id)
                .containsExactly("train#2", "eval#2");
    }

    // ---------------------------------------------------------------- ledger

    private static Charge charge(String grant, int minute, String tenant, String cluster, PoolId pool, long micros) {
        Instant from = T0.plusSeconds(60L * minute);
        return new Charge(grant, from, from.plusSeconds(60), tenant, cluster, pool, "n-" + grant, Money.parse("2.00"),
                8, Money.ofMicros(micros), minute < 30);
    }

    @Test
    void a_charge_is_recorded_once_per_grant_and_interval() {
        Charge first = charge("g1", 0, "acme", "acme-c", EU, 266_667);
        Charge again = new Charge("g1", first.from(), first.to().plusSeconds(5), "acme", "acme-c", EU, "n-g1",
                Money.parse("9.00"), 8, Money.usd(100), false);

        assertThat(ports.marketLedger().record(List.of(first, charge("g2", 0, "acme", "acme-c", EU, 5)))).isEqualTo(2);
        assertThat(ports.marketLedger().record(List.of(again, charge("g1", 1, "acme", "acme-c", EU, 7)))).isEqualTo(1);
        assertThat(ports.marketLedger().record(List.of())).isZero();

        assertThat(ports.marketLedger().chargedTo("acme")).isEqualTo(Money.ofMicros(266_667 + 5 + 7));
        assertThat(ports.marketLedger().chargedTo("nobody")).isEqualTo(Money.ZERO);
        assertThat(ports.marketLedger().latest("acme", 2)).containsExactly(charge("g1", 1, "acme", "acme-c", EU, 7),
                charge("g2", 0, "acme", "acme-c", EU, 5));
        assertThat(ports.marketLedger().latest("acme", 10)).contains(first).doesNotContain(again);
    }

    @Test
    void hourly_sums_charges_per_cluster_pool_and_hour_they_start_in() {
        ports.marketLedger().record(List.of(charge("g1", 0, "acme", "acme-c", EU, 100),
                charge("g1", 59, "acme", "acme-c", EU, 200), charge("g1", 60, "acme", "acme-c", EU, 400),
                charge("g2", 0, "acme", "acme-c", US, 800), charge("g3", 0, "acme", "other", EU, 1_600),
                charge("g4", 0, "beta", "beta-c", EU, 3_200)));

        assertThat(ports.marketLedger().hourly("acme")).containsExactly(
                new MarketLedger.HourlyCharge("acme-c", EU, T0, Money.ofMicros(300), 2 * 8 * 60),
                new MarketLedger.HourlyCharge("acme-c", US, T0, Money.ofMicros(800), 8 * 60),
                new MarketLedger.HourlyCharge("other", EU, T0, Money.ofMicros(1_600), 8 * 60),
                new MarketLedger.HourlyCharge("acme-c", EU, T0.plusSeconds(3600), Money.ofMicros(400), 8 * 60));
        assertThat(ports.marketLedger().hourly("nobody")).isEmpty();
    }

    @Test
    void a_top_up_is_recorded_once_per_tenant_and_key() {
        MarketLedger.CreditTopUp first = new MarketLedger.CreditTopUp("acme", "k1", Money.usd(100), "welcome", T0);
        MarketLedger.CreditTopUp second = new MarketLedger.CreditTopUp("acme", "k2", Money.parse("0.5"), null,
                T0.plusSeconds(1));

        assertThat(ports.marketLedger().credit(first)).isTrue();
        assertThat(ports.marketLedger().credit(new MarketLedger.CreditTopUp("acme", "k1", Money.usd(7), "again",
                T0.plusSeconds(9)))).isFalse();
        assertThat(ports.marketLedger().credit(second)).isTrue();
        assertThat(ports.marketLedger().credit(new MarketLedger.CreditTopUp("beta", "k1", Money.usd(1), null, T0)))
                .isTrue();

        assertThat(ports.marketLedger().credits("acme", 10)).containsExactly(second, first);
        assertThat(ports.marketLedger().credits("acme", 1)).containsExactly(second);
    }

    // ---------------------------------------------------------------- feed

    private static PoolTick tick(PoolId pool, int second, String price) {
        return new PoolTick(T0.plusSeconds(second), pool, price == null ? null : Money.parse(price), Money.parse("1.20"),
                10, 3, 12, 5, 7);
    }

    @Test
    void feed_entries_get_increasing_sequences_and_read_after_a_cursor() {
        MarketFeed feed = ports.marketFeed();
        feed.append(List.of(tick(EU, 0, "2.50"), tick(US, 0, null)));
        feed.append(List.of(tick(EU, 5, null), tick(US, 5, "0.60")));

        List<MarketFeed.Entry> all = feed.after(0, null, 10);
        assertThat(all).extracting(MarketFeed.Entry::tick).containsExactly(tick(EU, 0, "2.50"), tick(US, 0, null),
                tick(EU, 5, null), tick(US, 5, "0.60"));
        assertThat(all).extracting(MarketFeed.Entry::sequence).isSorted().doesNotHaveDuplicates();
        long second = all.get(1).sequence();
        assertThat(feed.after(second, null, 10)).containsExactlyElementsOf(all.subList(2, 4));
        assertThat(feed.after(0, US, 1)).containsExactly(all.get(1));
        assertThat(feed.after(0, null, 0)).isEmpty();
        assertThat(feed.latest(EU, 1)).containsExactly(tick(EU, 5, null));
        assertThat(feed.latest(EU, 10)).containsExactly(tick(EU, 0, "2.50"), tick(EU, 5, null));
    }

    @Test
    void appending_the_same_pool_and_time_again_replaces_the_entry_and_keeps_its_sequence() {
        MarketFeed feed = ports.marketFeed();
        feed.append(List.of(tick(EU, 0, "2.50")));
        long sequence = feed.after(0, null, 10).get(0).sequence();

        feed.append(List.of(tick(EU, 0, "3.00")));

        assertThat(feed.after(0, null, 10)).containsExactly(new MarketFeed.Entry(sequence, tick(EU, 0, "3.00")));
    }
}
