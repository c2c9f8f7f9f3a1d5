package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketLedger;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static com.bettercompute.application.market.MarketWorld.ACME_EU;
import static com.bettercompute.application.market.MarketWorld.ACME_TRAIN;
import static com.bettercompute.application.market.MarketWorld.ALICE;
import static com.bettercompute.application.market.MarketWorld.CAROL;
import static com.bettercompute.application.market.MarketWorld.DAVE;
import static com.bettercompute.application.market.MarketWorld.GLOBEX_TRAIN;
import static com.bettercompute.application.market.MarketWorld.OPS;
import static com.bettercompute.application.market.MarketWorld.POOL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The market's tenant and operator use cases on in-memory ports ({@link MarketWorld}). */
class MarketOperationsTest {
    final MarketWorld w = new MarketWorld();

    static void refused(ThrowingCallable call, ErrorCode code, String detail, Object value) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            if (detail != null) {
                assertThat(e.details()).containsEntry(detail, value);
            }
        });
    }

    // ------------------------------------------------------------ catalog

    @Test
    void the_catalog_enrols_ready_clusters_of_market_tenants_at_a_market_site_and_grants_credits_once() {
        Market m = w.markets.load();
        assertThat(m.hasCluster(ACME_TRAIN)).isTrue();
        assertThat(m.hasCluster(GLOBEX_TRAIN)).isTrue();
        assertThat(m.hasCluster(ACME_EU)).as("europe-west4 is no market site").isFalse();
        assertThat(m.cluster(ACME_TRAIN).maxGpus()).isEqualTo(64);
        assertThat(m.cluster(GLOBEX_TRAIN).packing()).isTrue();
        assertThat(m.supply(PoolId.parse(POOL))).isEqualTo(4);

        w.loadMarket.load(w.catalog);
        w.loadMarket.load(w.catalog);

        Market again = w.markets.load();
        assertThat(again.tenant("acme").credits()).isEqualTo(Money.usd(5000));
        assertThat(again.nodes(PoolId.parse(POOL))).hasSize(4);
        assertThat(again.clusters()).hasSize(2);
    }

    @ParameterizedTest(name = "catalog of {0} nodes at reserve {1}: supply {0}")
    @CsvSource({"6, 1.50", "2, 1.20", "0, 0.50"})
    void reloading_the_catalog_updates_the_pool(int nodes, String reserve) {
        MarketCatalog.PoolSpec p = w.catalog.pools().get(0);
        w.loadMarket.load(new MarketCatalog(w.catalog.timings(), List.of(new MarketCatalog.PoolSpec(p.id(), p.accountId(),
                p.zone(), p.machineType(), p.acceleratorType(), p.gpusPerNode(), nodes, Money.parse(reserve))), w.catalog.tenants()));
        Market m = w.markets.load();
        assertThat(m.supply(p.id())).isEqualTo(nodes);
        assertThat(m.pool(p.id()).reserve()).isEqualTo(Money.parse(reserve));
    }

    @Test
    void the_catalogs_durations_become_the_markets() {
        MarketTimings demo = new MarketTimings(Duration.ofMinutes(2), Duration.ofMinutes(4), Duration.ofSeconds(10),
                Duration.ofSeconds(30), Duration.ofMinutes(4), Duration.ofSeconds(60), Duration.ofSeconds(60));
        w.loadMarket.load(new MarketCatalog(demo, w.catalog.pools(), w.catalog.tenants()));
        assertThat(w.markets.load().timings()).isEqualTo(demo);
        assertThat(w.markets.load().hasCluster(ACME_TRAIN)).isTrue();
    }

    @Test
    void a_cluster_that_becomes_ready_is_enrolled_when_its_tenant_is_market_managed_and_its_region_a_site() {
        EnrolReadyCluster ready = new EnrolReadyCluster(w.ports.transactions(), w.markets, w.ports.clusters(), w.catalog,
                w.ports.clock());
        Cluster eu = w.ports.clusters().find(ACME_EU).orElseThrow();
        ready.ready(eu);
        assertThat(w.markets.load().hasCluster(ACME_EU)).isFalse();

        w.remove.remove(ACME_TRAIN);
        ready.ready(w.ports.clusters().find(ACME_TRAIN).orElseThrow());
        ready.ready(w.ports.clusters().find(ACME_TRAIN).orElseThrow());
        assertThat(w.markets.load().cluster(ACME_TRAIN).maxGpus()).isEqualTo(64);
    }

    // ------------------------------------------------------------ the limit price

    @Test
    void a_limit_is_set_read_and_withdrawn_by_the_clusters_name() {
        Bids.BidView set = w.bids.set(w.caller(ALICE), null, "train", Money.parse("2.40"));
        assertThat(set.limit()).isEqualTo(Money.parse("2.40"));
        assertThat(set.bidTooLow()).isFalse();
        assertThat(set.updatedAt()).isEqualTo(w.ports.clock().instant());
        assertThat(set.pools()).extracting(Bids.PoolPrice::pool).containsExactly(POOL);

        assertThat(w.bids.read(w.caller(DAVE), null, "train").limit()).isEqualTo(Money.parse("2.40"));
        assertThat(w.bids.read(w.caller(CAROL), null, "train").limit()).as("globex's own train").isNull();

        assertThat(w.bids.withdraw(w.caller(ALICE), null, "train").limit()).isNull();
        assertThat(w.markets.load().cluster(ACME_TRAIN).limit()).isNull();
    }

    @ParameterizedTest(name = "{0} sets {2} on {1}: {3}")
    @CsvSource({
            "ALICE, train, 1.19, INVALID_INPUT, reason, bid-too-low",
            "ALICE, nosuch, 2.00, NOT_FOUND, field, cluster",
            "ALICE, eu, 2.00, NOT_FOUND, reason, not-in-market",
            "DAVE, train, 2.00, ACCESS_DENIED, action, compute:kubernetes:update",
            "CAROL, eu, 2.00, NOT_FOUND, field, cluster",
            "ALICE, train, 100000.000001, INVALID_INPUT, reason, limit-too-high",
    })
    void a_limit_write_is_refused_cleanly_and_changes_nothing(String who, String cluster, String limit, ErrorCode code,
                                                              String detail, String value) {
        String token = switch (who) {
            case "ALICE" -> ALICE;
            case "DAVE" -> DAVE;
            default -> CAROL;
        };
        var before = w.markets.load().snapshot();
        refused(() -> w.bids.set(w.caller(token), null, cluster, Money.parse(limit)), code, detail, value);
        assertThat(w.markets.load().snapshot()).isEqualTo(before);
    }

    @Test
    void a_standing_limit_a_raised_reserve_passed_reads_bid_too_low() {
        w.bids.set(w.caller(ALICE), null, "train", Money.parse("1.50"));
        w.reserve.change(new ChangeReservePrice.Command(POOL, "2.00"));
        Bids.BidView read = w.bids.read(w.caller(ALICE), null, "train");
        assertThat(read.bidTooLow()).isTrue();
        assertThat(read.limit()).isEqualTo(Money.parse("1.50"));
        assertThat(read.pools().get(0).reserve()).isEqualTo(Money.parse("2.00"));
    }

    // ------------------------------------------------------------ requests, feed, balance, usage

    @Test
    void the_clusters_requests_show_phase_reason_grants_and_episodes() {
        w.file(ACME_TRAIN + "/ml/a", ACME_TRAIN, 16, null);
        w.file(ACME_TRAIN + "/ml/JobSet:b", ACME_TRAIN, 8, "3.00");
        w.tickAndReady();
        List<ListClusterRequests.Item> items = w.requests.list(w.caller(DAVE), null, "train");
        assertThat(items).extracting(ListClusterRequests.Item::phase, ListClusterRequests.Item::reason,
                        ListClusterRequests.Item::limitSource)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("waiting", "BidTooLow", "cluster"),
                        org.assertj.core.groups.Tuple.tuple("provisioned", "Provisioned", "job"));
        ListClusterRequests.Item running = items.get(1);
        assertThat(items.get(0).job()).isEqualTo(new ListClusterRequests.Job("Job", "ml", "a"));
        assertThat(running.job()).as("the kind, never the cluster").isEqualTo(new ListClusterRequests.Job("JobSet", "ml", "b"));
        assertThat(running.grantedNodes()).isEqualTo(1);
        // the lowest limit accepted in the tick: its own
        assertThat(running.lockedRate()).isEqualTo(Money.parse("3.00"));
        assertThat(running.holdUntil()).isEqualTo(w.ports.clock().instant().plus(Duration.ofHours(1)));
        assertThat(running.episodes()).singleElement().satisfies(e -> {
            assertThat(e.queuedAt()).isEqualTo(running.filedAt());
            assertThat(e.runningAt()).isEqualTo(w.ports.clock().instant());
        });
        assertThat(w.requests.list(w.caller(CAROL), null, "train")).as("globex's train has none").isEmpty();
    }

    @Test
    void requests_that_left_the_market_are_listed_after_the_open_ones_latest_first_with_every_attempt() {
        w.file("batch/ml/done", ACME_TRAIN, 8, "3.00");
        w.file("batch/ml/moved", ACME_TRAIN, 8, null);
        w.bids.set(w.caller(ALICE), null, "train", Money.parse("2.50"));
        w.tickAndReady();
        w.ports.clock().advance(Duration.ofMinutes(5));
        new ReportJobEnded(w.ports.transactions(), w.markets, w.ports.outbox(), w.ports.clock()).report(new ReportJobEnded.Command("batch/ml/done"));
        String node = w.markets.load().openRequest("batch/ml/moved").grantedNodeIds().get(0);
        new ReportNodeLeft(w.ports.transactions(), w.markets, w.ports.outbox(), w.ports.clock()).report(new ReportNodeLeft.Command(node));

        List<ListClusterRequests.Item> items = w.requests.list(w.caller(DAVE), null, "train");
        assertThat(items).extracting(ListClusterRequests.Item::id, ListClusterRequests.Item::phase,
                        ListClusterRequests.Item::reason, ListClusterRequests.Item::limitSource,
                        ListClusterRequests.Item::grantedNodes)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("batch/ml/moved#2", "waiting", "Pending", "cluster", 0),
                        org.assertj.core.groups.Tuple.tuple("batch/ml/moved", "revoked", "MarketRevoked", "cluster", 0),
                        org.assertj.core.groups.Tuple.tuple("batch/ml/done", "ended", "Provisioned", "job", 0));
        ListClusterRequests.Item revoked = items.get(1);
        assertThat(revoked.limitPrice()).isEqualTo(Money.parse("2.50"));
        assertThat(revoked.lockedRate()).isNotNull();
        assertThat(revoked.episodes()).as("its own attempt's, not the live attempt's").singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.end()).isEqualTo("revoked");
            assertThat(e.endedAt()).isEqualTo(w.ports.clock().instant());
        });
        assertThat(items.get(0).episodes()).singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(2);
            assertThat(e.end()).isNull();
            assertThat(e.queuedAt()).isEqualTo(w.ports.clock().instant());
        });
        assertThat(items.get(2).episodes()).singleElement().satisfies(e -> {
            assertThat(e.end()).isEqualTo("ended");
            assertThat(e.endedAt()).isEqualTo(w.ports.clock().instant());
            assertThat(e.runningAt()).isNotNull();
        });
        assertThat(w.requests.list(w.caller(CAROL), null, "train")).as("globex's train has none").isEmpty();
    }

    @Test
    void an_outbid_attempt_ends_at_its_revocations_instant_where_its_successor_begins_even_when_the_tick_comes_late() {
        w.file(ACME_TRAIN + "/ml/outbid", ACME_TRAIN, 32, "2.00");
        w.tickAndReady();
        w.ports.clock().advance(Duration.ofHours(2).plusMinutes(1));   // past its protection window
        w.file(MarketWorld.GLOBEX_TRAIN + "/ml/higher", MarketWorld.GLOBEX_TRAIN, 8, "5.00");
        w.tickAndReady();
        Instant deadline = w.markets.load().openRequest(ACME_TRAIN + "/ml/outbid").noticeDeadline();
        assertThat(deadline).as("noticed").isNotNull();
        w.ports.clock().advance(Duration.ofSeconds(67));   // the tick that finds the notice run out comes late
        w.tickAndReady();

        List<ListClusterRequests.Item> items = w.requests.list(w.caller(DAVE), null, "train");
        assertThat(items).extracting(ListClusterRequests.Item::attempt, ListClusterRequests.Item::phase)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, "waiting"), org.assertj.core.groups.Tuple.tuple(1, "revoked"));
        ListClusterRequests.Episode first = items.get(1).episodes().get(0);
        ListClusterRequests.Episode second = items.get(0).episodes().get(0);
        assertThat(first.end()).isEqualTo("revoked");
        assertThat(first.endedAt()).as("the revocation's instant, not the late tick's").isEqualTo(deadline)
                .isBefore(w.ports.clock().instant());
        assertThat(second.queuedAt()).as("the next attempt begins where the revoked one ended").isEqualTo(first.endedAt());
        assertThat(w.requests.read(w.caller(DAVE), null, "train").runs().get(0).episodes())
                .extracting(ListClusterRequests.Episode::endedAt).containsExactly(deadline, null);
    }

    @Test
    void the_run_history_lists_each_job_once_with_its_attempts_in_order_the_latest_filed_first() {
        String job = ACME_TRAIN + "/ml/moved";
        w.file(ACME_TRAIN + "/ml/early", ACME_TRAIN, 8, "0");
        w.file(job, ACME_TRAIN, 8, null);
        w.bids.set(w.caller(ALICE), null, "train", Money.parse("2.50"));
        for (int attempt = 1; attempt <= 3; attempt++) {
            w.tickAndReady();
            w.ports.clock().advance(Duration.ofMinutes(1));
            String node = w.markets.load().openRequest(job).grantedNodeIds().get(0);
            new ReportNodeLeft(w.ports.transactions(), w.markets, w.ports.outbox(), w.ports.clock()).report(new ReportNodeLeft.Command(node));
            w.ports.clock().advance(Duration.ofMinutes(1));
        }

        ListClusterRequests.View view = w.requests.read(w.caller(DAVE), null, "train");
        assertThat(view.items()).filteredOn(i -> i.job().name().equals("moved")).hasSize(4)
                .allSatisfy(i -> assertThat(i.episodes()).singleElement().satisfies(e -> assertThat(e.attempt()).isEqualTo(i.attempt())));
        assertThat(view.runs()).extracting(r -> r.job().name()).containsExactly("moved", "early");
        ListClusterRequests.Runs moved = view.runs().get(0);
        assertThat(moved.job()).isEqualTo(new ListClusterRequests.Job("Job", "ml", "moved"));
        assertThat(moved.episodes()).extracting(ListClusterRequests.Episode::attempt).containsExactly(1, 2, 3, 4);
        assertThat(moved.episodes()).extracting(ListClusterRequests.Episode::end).containsExactly("revoked", "revoked", "revoked", null);
        assertThat(moved.episodes()).extracting(ListClusterRequests.Episode::queuedAt).isSorted().doesNotHaveDuplicates();
        assertThat(moved.episodes().subList(0, 3)).allSatisfy(e -> assertThat(e.runningAt()).isNotNull());
    }

    @Test
    void the_requests_list_shows_at_most_the_latest_closed_requests() {
        for (int i = 0; i < ListClusterRequests.CLOSED_SHOWN + 3; i++) {
            w.file("job-" + i, ACME_TRAIN, 8, "0");
            new ReportJobEnded(w.ports.transactions(), w.markets, w.ports.outbox(), w.ports.clock()).report(new ReportJobEnded.Command("job-" + i));
        }
        List<ListClusterRequests.Item> items = w.requests.list(w.caller(DAVE), null, "train");
        assertThat(items).hasSize(ListClusterRequests.CLOSED_SHOWN);
        assertThat(items.get(0).id()).isEqualTo("job-" + (ListClusterRequests.CLOSED_SHOWN + 2));
        assertThat(items).extracting(ListClusterRequests.Item::phase).containsOnly("ended");
    }

    @Test
    void the_feed_reads_after_a_cursor_and_the_cursor_stays_when_nothing_is_new() {
        w.tickAndReady();
        w.ports.clock().advance(Duration.ofSeconds(5));
        w.tickAndReady();
        ReadMarketFeed.Page first = w.readFeed.read(null, 0, 1);
        assertThat(first.items()).hasSize(1);
        ReadMarketFeed.Page rest = w.readFeed.read(POOL, first.next(), 100);
        assertThat(rest.items()).hasSize(1);
        assertThat(rest.items().get(0).sequence()).isGreaterThan(first.next());
        ReadMarketFeed.Page none = w.readFeed.read(POOL, rest.next(), 100);
        assertThat(none.items()).isEmpty();
        assertThat(none.next()).isEqualTo(rest.next());
    }

    @ParameterizedTest(name = "pool={0} after={1} limit={2}: {3}")
    @CsvSource({
            "eu/none, 0, 10, NOT_FOUND",
            "nopool, 0, 10, INVALID_INPUT",
            ", -1, 10, INVALID_INPUT",
            ", 0, 0, INVALID_INPUT",
            ", 0, 1001, INVALID_INPUT",
    })
    void a_bad_feed_read_is_refused(String pool, long after, int limit, ErrorCode code) {
        refused(() -> w.readFeed.read(pool, after, limit), code, null, null);
    }

    @Test
    void the_balance_is_credits_minus_charges_with_the_latest_entries_and_usage_shows_gpu_hours() {
        w.bids.set(w.caller(ALICE), null, "train", Money.parse("2.00"));
        w.file("j", ACME_TRAIN, 8, null);
        w.tickAndReady();
        w.ports.clock().advance(Duration.ofMinutes(30));
        w.tickAndReady();
        w.ports.clock().advance(Duration.ofMinutes(30));
        w.tickAndReady();
        w.ports.clock().advance(Duration.ofMinutes(30));
        w.tickAndReady();

        ReadBalance.Balance b = w.balance.read(w.caller(DAVE), null);
        assertThat(b.org()).isEqualTo("acme");
        assertThat(b.credits()).isEqualTo(Money.usd(5000));
        // 8 GPUs for an hour and a half at the locked 2.00: the first hour's entry closed on the hour, the
        // half hour after it accrued in the open entry, in the balance already
        assertThat(b.charged()).isEqualTo(Money.parse("24.00"));
        assertThat(b.balance()).isEqualTo(Money.parse("4976.00"));
        assertThat(b.entries()).extracting(ReadBalance.Entry::kind).contains("charge", "credit", "accruing");
        assertThat(b.entries()).filteredOn(e -> !e.kind().equals("credit")).extracting(ReadBalance.Entry::amount)
                .as("the closed hour and the half hour accruing").containsExactly(Money.parse("8.00"), Money.parse("16.00"));
        assertThat(b.entries().get(b.entries().size() - 1).key()).isEqualTo(LoadMarketCatalog.CREDITS_KEY);

        List<MarketLedger.HourlyCharge> hours = w.gpuUsage.read(w.caller(DAVE), "acme", 100);
        assertThat(hours).isNotEmpty();
        assertThat(hours).as("the closed hour").hasSize(1);
        assertThat(hours.get(0).amount()).isEqualTo(Money.parse("16.00"));
        assertThat(hours.get(0).gpuSeconds()).isEqualTo(8 * 3600);
        assertThat(w.gpuUsage.read(w.caller(OPS), "globex", 100)).isEmpty();
    }

    // ------------------------------------------------------------ operator

    @Test
    void a_top_up_is_recorded_once_per_key() {
        TopUpCredits.Command c = new TopUpCredits.Command("globex", Money.usd(50), "promo", "k-1");
        TopUpCredits.TopUpView first = w.topUp.topUp(c);
        TopUpCredits.TopUpView again = w.topUp.topUp(c);
        assertThat(first.replayed()).isFalse();
        assertThat(again.replayed()).isTrue();
        assertThat(again.balance()).isEqualTo(Money.usd(150));
        assertThat(w.markets.load().tenant("globex").credits()).isEqualTo(Money.usd(150));
        assertThat(w.topUp.topUp(new TopUpCredits.Command("acme", Money.usd(50), null, "k-1")).replayed())
                .as("keys are each organization's own").isFalse();
    }

    @ParameterizedTest(name = "top-up of {1} to {0} under a used key: {2}")
    @CsvSource({"globex, 51, CONFLICT", "nosuch, 50, NOT_FOUND"})
    void a_top_up_refused_credits_nothing(String org, long amount, ErrorCode code) {
        w.topUp.topUp(new TopUpCredits.Command("globex", Money.usd(50), null, "k-1"));
        var before = w.markets.load().snapshot();
        refused(() -> w.topUp.topUp(new TopUpCredits.Command(org, Money.usd(amount), null, "k-1")), code, null, null);
        assertThat(w.markets.load().snapshot()).isEqualTo(before);
    }

    @ParameterizedTest(name = "add {0} remove {1}: supply {2}")
    @CsvSource({"2, 0, 6", "0, 3, 1", "0, 4, 0"})
    void supply_changes(int add, int remove, int supply) {
        ChangeSupply.SupplyView v = w.supply.change(new ChangeSupply.Command(POOL, add, remove));
        assertThat(v.supply()).isEqualTo(supply);
        assertThat(v.added()).hasSize(add);
        assertThat(v.removed()).hasSize(remove);
    }

    @ParameterizedTest(name = "pool {0} add {1} remove {2}: {3}")
    @CsvSource({
            "us-central1/h100-8x, 0, 5, INVALID_INPUT",
            "us-central1/h100-8x, 1, 1, INVALID_INPUT",
            "us-central1/h100-8x, 0, 0, INVALID_INPUT",
            "us-central1/none, 1, 0, NOT_FOUND",
            "nopool, 1, 0, INVALID_INPUT",
    })
    void a_bad_supply_change_is_refused_and_changes_nothing(String pool, int add, int remove, ErrorCode code) {
        var before = w.markets.load().snapshot();
        refused(() -> w.supply.change(new ChangeSupply.Command(pool, add, remove)), code, null, null);
        assertThat(w.markets.load().snapshot()).isEqualTo(before);
    }

    @Test
    void removing_supply_below_what_is_granted_revokes_the_gang_and_keeps_the_book_whole() {
        w.bids.set(w.caller(ALICE), null, "train", Money.parse("2.00"));
        w.file("j", ACME_TRAIN, 32, null);
        w.tickAndReady();
        assertThat(w.markets.load().liveGrants()).hasSize(4);

        w.supply.change(new ChangeSupply.Command(POOL, 0, 1));

        Market m = w.markets.load();
        assertThat(m.nodes(PoolId.parse(POOL))).hasSize(3);
        assertThat(m.liveGrants()).isEmpty();
        assertThat(m.openRequest("j").attempt()).as("requeued as a new request").isEqualTo(2);
        w.ports.clock().advance(Duration.ofSeconds(61));
        w.tickAndReady();
        m = w.markets.load();
        assertThat(m.supply(PoolId.parse(POOL))).as("the drained nodes are back").isEqualTo(3);
        assertThat(m.openRequest("j").phase().holds()).as("32 GPUs no longer fit in 3 nodes").isFalse();
        assertThat(Market.restore(m.snapshot()).snapshot()).isEqualTo(m.snapshot());
    }

    @Test
    void the_operator_enrols_changes_and_removes_a_cluster() {
        EnrolCluster.Enrolment e = w.enrol.enrol(new EnrolCluster.Command(ACME_EU, 24L, null, null));
        assertThat(e.maxClusterGpus()).isEqualTo(24);
        assertThat(e.packing()).as("the tenant's setting").isFalse();

        EnrolCluster.Enrolment changed = w.enrol.enrol(new EnrolCluster.Command(ACME_EU, null, true,
                new EnrolCluster.Block(POOL, 1)));
        assertThat(changed.maxClusterGpus()).isEqualTo(24);
        assertThat(changed.packing()).isTrue();
        assertThat(changed.blockNodes()).hasSize(1);
        assertThat(w.markets.load().supply(PoolId.parse(POOL))).isEqualTo(3);

        w.remove.remove(ACME_EU);
        assertThat(w.markets.load().hasCluster(ACME_EU)).isFalse();
        assertThat(w.markets.load().supply(PoolId.parse(POOL))).isEqualTo(4);
    }

    @Test
    void a_refused_enrolment_or_removal_changes_nothing() {
        var before = w.markets.load().snapshot();
        refused(() -> w.enrol.enrol(new EnrolCluster.Command("kcl_nosuch", 8L, null, null)), ErrorCode.NOT_FOUND, "field", "cluster_id");
        refused(() -> w.enrol.enrol(new EnrolCluster.Command(ACME_EU, 8L, true, new EnrolCluster.Block(POOL, 5))),
                ErrorCode.INVALID_STATE, null, null);
        refused(() -> w.enrol.enrol(new EnrolCluster.Command(ACME_EU, 8L, true, new EnrolCluster.Block("us-central1/none", 1))),
                ErrorCode.NOT_FOUND, null, null);
        refused(() -> w.remove.remove(ACME_EU), ErrorCode.NOT_FOUND, "field", "cluster_id");
        w.file("j", ACME_TRAIN, 8, null);
        var filed = w.markets.load().snapshot();
        refused(() -> w.remove.remove(ACME_TRAIN), ErrorCode.INVALID_STATE, null, null);
        assertThat(w.markets.load().snapshot()).isEqualTo(filed);
        assertThat(before.clusters()).hasSize(2);
    }
}
