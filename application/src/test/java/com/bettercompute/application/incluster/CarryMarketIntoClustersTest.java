package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryInClusterLeases;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.market.Market;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-cluster market shared by replicas through per-cluster leases, read once a pass, its clusters worked on a
 * bounded pool: on the fakes, with the clock moved by hand and the pool's threads held by latches.
 */
class CarryMarketIntoClustersTest {
    static final Duration LEASE = Duration.ofSeconds(30);
    static final int CLUSTERS = 20;
    static final int CONCURRENCY = 4;
    static final Duration OBJECTS_EVERY = Duration.ofSeconds(60);
    /** How long a test waits for the pass's threads before it fails: never reached when the rule holds. */
    static final long PATIENCE_SECONDS = 10;

    final MarketWorld w = new MarketWorld();
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final InMemoryInClusterLeases leases = new InMemoryInClusterLeases();
    final ClusterConnections connections = new ClusterConnections(w.ports.clusters(), w.ports.catalog(),
            account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1)));
    final List<String> ids = IntStream.range(0, CLUSTERS).mapToObj(i -> String.format("kcl_shard%020d", i)).toList();

    CarryMarketIntoClustersTest() {
        Market market = w.markets.load();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            insertReachable(id, "127.0.0.1:" + (7000 + i));
            market.addCluster(id, "acme", 64, null);
        }
        w.markets.save(market);
        int port = 8000;
        for (String id : enrolled()) {
            if (!ids.contains(id)) {
                // an endpoint of its own, as each of this test's clusters has: the fake's calls say which cluster they are for
                ReachableClusters.reachable(w.ports, id, "127.0.0.1:" + port++);
            }
        }
    }

    CarryMarketIntoClusters replica(String owner) {
        return replica(owner, CONCURRENCY, Executors.newFixedThreadPool(CONCURRENCY));
    }

    CarryMarketIntoClusters replica(String owner, int concurrency, ExecutorService pool) {
        var p = w.ports;
        var steps = new CarryMarketIntoClusters.Steps(new KeepClusterComponents(connections, cluster),
                new KeepPlatformObjects(w.markets, connections, cluster),
                new SyncClusterDemand(p.transactions(), w.markets, p.outbox(), p.clock()),
                new PublishRequestStatus(w.markets, cluster, p.clock()),
                new ReconcileMarketNodes(p.transactions(), w.markets, w.catalog, connections, p.catalog(),
                        account -> new InMemoryClusterProvider(p.clock(), Duration.ofSeconds(1)), cluster, p.outbox(), p.clock()));
        return new CarryMarketIntoClusters(w.markets, leases, connections, cluster, steps, p.clock(), owner, LEASE,
                OBJECTS_EVERY, concurrency, pool, () -> { });
    }

    /** Every enrolled cluster of the market (the world's own and this test's). */
    Set<String> enrolled() {
        Set<String> all = new HashSet<>();
        w.markets.load().clusters().forEach(c -> all.add(c.id()));
        return all;
    }

    @Test
    void one_replica_works_every_enrolled_cluster_and_reads_the_market_once_a_pass() {
        CarryMarketIntoClusters only = replica("r1");
        only.pass();
        int loads = w.markets.loads();

        CarryMarketIntoClusters.Pass pass = only.pass();
        int loaded = w.markets.loads() - loads;

        assertThat(loaded).as("market loads in a pass over %d clusters", pass.held().size()).isEqualTo(1);
        assertThat(pass.marketReads()).isEqualTo(1);
        assertThat(pass.held()).containsAll(ids).isEqualTo(enrolled());
        assertThat(only.watching()).containsAll(ids);
    }

    @Test
    void clusters_taken_in_one_pass_have_their_upkeep_spread_over_the_interval_not_in_one_pass() {
        CarryMarketIntoClusters only = replica("r1");
        only.pass();
        int clusters = enrolled().size();
        int kept = cluster.ensured.size();
        assertThat(kept).as("each cluster's objects kept as its watch starts").isEqualTo(clusters);

        List<Integer> perPass = new java.util.ArrayList<>();
        Duration tick = Duration.ofSeconds(5);
        for (long t = 0; t < OBJECTS_EVERY.dividedBy(tick); t++) {
            w.ports.clock().advance(tick);
            only.pass();
            perPass.add(cluster.ensured.size() - kept);
            kept = cluster.ensured.size();
        }

        assertThat(perPass.stream().mapToInt(Integer::intValue).sum()).as("each cluster kept once in an interval").isEqualTo(clusters);
        assertThat(perPass.stream().filter(n -> n > 0).count()).as("passes that kept any, of %s", perPass).isGreaterThanOrEqualTo(6);
        assertThat(perPass).as("no pass keeps most clusters at once").allMatch(n -> n <= clusters / 3);
    }

    @Test
    void the_add_ons_are_looked_at_once_in_ten_upkeeps_and_the_platform_objects_at_every_one() {
        CarryMarketIntoClusters only = replica("r1");
        only.pass();
        int clusters = enrolled().size();
        int looks = cluster.componentPasses;
        int kept = cluster.ensured.size();

        int upkeeps = CarryMarketIntoClusters.UPKEEPS_PER_ADD_ON_LOOK;
        Duration tick = Duration.ofSeconds(5);
        List<Integer> looksPerInterval = new java.util.ArrayList<>();
        for (int interval = 0; interval < upkeeps; interval++) {
            int before = cluster.componentPasses;
            for (long t = 0; t < OBJECTS_EVERY.dividedBy(tick); t++) {
                w.ports.clock().advance(tick);
                only.pass();
            }
            looksPerInterval.add(cluster.componentPasses - before);
        }

        assertThat(cluster.ensured.size() - kept).as("platform objects at every upkeep").isEqualTo(clusters * upkeeps);
        assertThat(cluster.componentPasses - looks).as("add-ons once in %d upkeeps", upkeeps).isEqualTo(clusters);
        assertThat(looksPerInterval).as("looks per interval, spread over the clusters").allMatch(n -> n < clusters);
    }

    @Test
    void demand_in_every_cluster_is_written_in_one_transaction_and_the_market_read_again_once() {
        CarryMarketIntoClusters only = replica("r1");
        only.pass();
        var job = cluster.job("ml", "train", 8, "h100-8x");
        cluster.request(job, "train-1", w.ports.clock().instant());
        int loads = w.markets.loads();
        int saves = w.markets.saves();

        CarryMarketIntoClusters.Pass pass = only.pass();
        int loaded = w.markets.loads() - loads;

        assertThat(loaded).as("the view, the write, the view again").isEqualTo(3);
        assertThat(pass.marketReads()).isEqualTo(2);
        assertThat(w.markets.saves() - saves).as("one save for every cluster's new request").isEqualTo(1);
        assertThat(pass.demandChanged()).containsAll(ids);
        assertThat(w.markets.load().openRequests()).hasSize(pass.held().size());
        assertThat(cluster.request("ml", "train-1").statusWrites).as("verdicts written in the same pass").isPositive();

        loads = w.markets.loads();
        only.pass();
        assertThat(w.markets.loads() - loads).as("nothing changed: one read").isEqualTo(1);
    }

    @Test
    void a_job_the_market_refuses_is_not_tried_again_at_every_pass_but_after_a_while() {
        CarryMarketIntoClusters only = replica("r1");
        only.pass();
        var job = cluster.job("ml", "odd", 12, "h100-8x");
        cluster.request(job, "odd-1", w.ports.clock().instant());
        int loads = w.markets.loads();
        int saves = w.markets.saves();

        only.pass();
        assertThat(w.markets.loads() - loads).as("the view and the write that refused it").isEqualTo(2);
        loads = w.markets.loads();
        only.pass();
        assertThat(w.markets.loads() - loads).as("a standing refusal: the view only").isEqualTo(1);

        w.ports.clock().advance(SyncClusterDemand.RETRY_REFUSED);
        loads = w.markets.loads();
        only.pass();
        assertThat(w.markets.loads() - loads).as("tried again").isEqualTo(2);
        assertThat(w.markets.saves()).as("never filed").isEqualTo(saves);
    }

    @Test
    void a_second_replica_takes_its_share_which_the_first_gives_back() {
        CarryMarketIntoClusters first = replica("r1");
        CarryMarketIntoClusters second = replica("r2");
        first.pass();

        assertThat(second.pass().held()).as("the first holds every lease still").isEmpty();
        CarryMarketIntoClusters.Pass firstAfter = first.pass();
        CarryMarketIntoClusters.Pass secondAfter = second.pass();

        assertThat(firstAfter.replicas()).isEqualTo(2);
        assertThat(firstAfter.held()).isNotEmpty();
        assertThat(secondAfter.held()).isNotEmpty();
        assertThat(firstAfter.held()).doesNotContainAnyElementsOf(secondAfter.held());
        Set<String> union = new HashSet<>(firstAfter.held());
        union.addAll(secondAfter.held());
        assertThat(union).isEqualTo(enrolled());
        assertThat(first.watching()).isEqualTo(firstAfter.held());
        assertThat(second.watching()).isEqualTo(secondAfter.held());
        for (String id : union) {
            assertThat(CarryMarketIntoClusters.shardOwner(id, List.of("r1", "r2")))
                    .isEqualTo(firstAfter.held().contains(id) ? "r1" : "r2");
        }
    }

    @Test
    void a_replica_that_dies_has_its_clusters_taken_over_once_its_leases_ran_out() {
        CarryMarketIntoClusters first = replica("r1");
        CarryMarketIntoClusters second = replica("r2");
        first.pass();
        second.pass();
        first.pass();
        Set<String> secondsShare = second.pass().held();

        // the first dies: it renews nothing from here on
        w.ports.clock().advance(LEASE.minusSeconds(1));
        assertThat(second.pass().held()).as("the dead replica's leases still run").isEqualTo(secondsShare);
        w.ports.clock().advance(Duration.ofSeconds(2));
        CarryMarketIntoClusters.Pass after = second.pass();

        assertThat(after.replicas()).isEqualTo(1);
        assertThat(after.held()).isEqualTo(enrolled());
        assertThat(second.watching()).isEqualTo(enrolled());
        assertThat(leases.owners().values()).containsOnly("r2");
    }

    @Test
    void a_replica_that_stops_gives_its_clusters_back_at_once() {
        CarryMarketIntoClusters first = replica("r1");
        CarryMarketIntoClusters second = replica("r2");
        first.pass();
        second.pass();
        first.pass();

        first.close();

        assertThat(first.watching()).isEmpty();
        assertThat(second.pass().held()).as("no wait for the leases to run out").isEqualTo(enrolled());
    }

    @Test
    void a_cluster_that_leaves_the_market_is_given_back_and_no_longer_watched() {
        CarryMarketIntoClusters only = replica("r1");
        only.pass();
        Market market = w.markets.load();
        market.removeCluster(ids.get(0));
        w.markets.save(market);

        CarryMarketIntoClusters.Pass pass = only.pass();

        assertThat(pass.held()).doesNotContain(ids.get(0));
        assertThat(only.watching()).doesNotContain(ids.get(0));
        assertThat(leases.owners()).doesNotContainKey(ids.get(0));
    }

    @Test
    void a_replica_whose_lease_was_taken_meanwhile_stops_working_the_cluster() {
        CarryMarketIntoClusters first = replica("r1");
        first.pass();
        // the first stalls past its leases: another replica takes a cluster, then the first goes on
        w.ports.clock().advance(LEASE.plusSeconds(1));
        leases.claim(List.of(ids.get(0)), "r9", w.ports.clock().instant(), w.ports.clock().instant().plus(LEASE));

        CarryMarketIntoClusters.Pass pass = first.pass();

        assertThat(pass.held()).doesNotContain(ids.get(0));
        assertThat(first.watching()).doesNotContain(ids.get(0));
        assertThat(leases.owners()).containsEntry(ids.get(0), "r9");
    }

    @Test
    void a_slow_cluster_holds_only_its_own_thread_while_every_other_cluster_is_worked() throws Exception {
        CarryMarketIntoClusters only = replica("r1");
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> slow = new AtomicReference<>();
        CountDownLatch others = new CountDownLatch(enrolled().size() - 1);
        cluster.beforeComponents = c -> {
            if (slow.compareAndSet(null, c.endpointUrl())) {
                await(release);
            } else {
                others.countDown();
            }
        };

        CompletableFuture<CarryMarketIntoClusters.Pass> pass = CompletableFuture.supplyAsync(only::pass);

        assertThat(others.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("every other cluster reached while one is held").isTrue();
        assertThat(pass).as("the pass waits for its slow cluster").isNotDone();
        release.countDown();
        assertThat(pass.get(PATIENCE_SECONDS, TimeUnit.SECONDS).held()).isEqualTo(enrolled());
        assertThat(only.watching()).as("the slow cluster too, once it answered").isEqualTo(enrolled());
        only.close();
    }

    @Test
    void a_failing_cluster_stops_no_other_and_is_tried_again_at_the_next_pass() {
        CarryMarketIntoClusters only = replica("r1");
        AtomicReference<String> failing = new AtomicReference<>();
        cluster.beforeComponents = c -> {
            if (failing.compareAndSet(null, c.endpointUrl()) || c.endpointUrl().equals(failing.get())) {
                throw new ProviderException(ProviderException.Kind.UNAVAILABLE, "the cluster's API is down");
            }
        };

        CarryMarketIntoClusters.Pass first = only.pass();

        assertThat(first.held()).isEqualTo(enrolled());
        assertThat(only.watching()).as("all but the failing one").hasSize(enrolled().size() - 1);
        cluster.beforeComponents = c -> { };
        only.pass();
        assertThat(only.watching()).isEqualTo(enrolled());
        only.close();
    }

    @Test
    void each_cluster_is_worked_once_a_pass_on_at_most_the_configured_threads_at_once() throws Exception {
        int concurrency = 3;
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newCachedThreadPool();
        CarryMarketIntoClusters only = replica("r1", concurrency, pool);
        Map<String, Integer> worked = new ConcurrentHashMap<>();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch full = new CountDownLatch(concurrency);
        CountDownLatch release = new CountDownLatch(1);
        cluster.beforeComponents = c -> {
            worked.merge(c.endpointUrl(), 1, Integer::sum);
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            full.countDown();
            await(release);
            inFlight.decrementAndGet();
        };

        CompletableFuture<CarryMarketIntoClusters.Pass> pass = CompletableFuture.supplyAsync(only::pass);
        assertThat(full.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("%d clusters at once", concurrency).isTrue();
        // (the pool's own thread count is no measure: a cached pool may start a thread while one that just finished
        // the pass's first sweep is not yet idle; what is held at once is)
        release.countDown();
        pass.get(PATIENCE_SECONDS, TimeUnit.SECONDS);

        assertThat(most.get()).as("clusters worked at once").isEqualTo(concurrency);
        assertThat(worked.keySet()).hasSize(enrolled().size());
        assertThat(worked.values()).containsOnly(1);

        // over the upkeeps between two looks at the add-ons every cluster's are looked at again, once each
        for (int i = 0; i < CarryMarketIntoClusters.UPKEEPS_PER_ADD_ON_LOOK; i++) {
            w.ports.clock().advance(OBJECTS_EVERY);
            only.pass();
        }
        assertThat(worked.values()).containsOnly(2);
        only.close();
        assertThat(pool.isShutdown()).as("the pool is closed with the replica").isTrue();
    }

    @Test
    void the_market_is_read_and_demand_written_once_a_pass_whatever_the_threads() {
        CarryMarketIntoClusters only = replica("r1", 8, Executors.newFixedThreadPool(8));
        only.pass();
        var job = cluster.job("ml", "train", 8, "h100-8x");
        cluster.request(job, "train-1", w.ports.clock().instant());
        int saves = w.markets.saves();

        CarryMarketIntoClusters.Pass pass = only.pass();

        assertThat(pass.marketReads()).isEqualTo(2);
        assertThat(w.markets.saves() - saves).isEqualTo(1);
        assertThat(pass.demandChanged()).isEqualTo(enrolled());
        only.close();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released within " + PATIENCE_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void insertReachable(String id, String endpoint) {
        Instant now = w.ports.clock().instant();
        Cluster c = new Cluster(id, "acme", null, "pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "acct_platform", "shard-" + id.substring(id.length() - 6), null,
                ClusterMode.STANDARD, "us-central1-a", "us-central1", LocationType.ZONAL, ReleaseChannel.REGULAR, null, null, null,
                endpoint, List.of(), false, null, null, ClusterState.READY, null, Ids.providerName(id),
                "user:alice@acme.example", "fp", 1, now, now, now, null, List.of(),
                new Cluster.Progress(null, null, null, 0, null, "Y2E=", null));
        w.ports.transactions().inTransaction(() -> {
            w.ports.clusters().insert(c);
            return null;
        });
    }
}
