package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryInClusterLeases;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.InMemoryClusterProvider;
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
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-cluster market shared by replicas through per-cluster leases, and read once a pass: on the fakes, with
 * the clock moved by hand.
 */
class CarryMarketIntoClustersTest {
    static final Duration LEASE = Duration.ofSeconds(30);
    static final int CLUSTERS = 20;

    final MarketWorld w = new MarketWorld();
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final InMemoryInClusterLeases leases = new InMemoryInClusterLeases();
    final ClusterConnections connections = new ClusterConnections(w.ports.clusters(), w.ports.catalog(),
            account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1)));
    final List<String> ids = IntStream.range(0, CLUSTERS).mapToObj(i -> String.format("kcl_shard%020d", i)).toList();

    CarryMarketIntoClustersTest() {
        Market market = w.markets.load();
        for (String id : ids) {
            insertReachable(id);
            market.addCluster(id, "acme", 64, null);
        }
        w.markets.save(market);
        for (String id : enrolled()) {
            if (!ids.contains(id)) {
                ReachableClusters.reachable(w.ports, id);
            }
        }
    }

    CarryMarketIntoClusters replica(String owner) {
        var p = w.ports;
        var steps = new CarryMarketIntoClusters.Steps(new KeepClusterComponents(connections, cluster),
                new KeepPlatformObjects(w.markets, connections, cluster),
                new SyncClusterDemand(p.transactions(), w.markets, p.outbox(), p.clock()),
                new PublishRequestStatus(w.markets, cluster, p.clock()),
                new ReconcileMarketNodes(p.transactions(), w.markets, w.catalog, connections, p.catalog(),
                        account -> new InMemoryClusterProvider(p.clock(), Duration.ofSeconds(1)), cluster, p.outbox(), p.clock()));
        return new CarryMarketIntoClusters(w.markets, leases, connections, cluster, steps, p.clock(), owner, LEASE,
                Duration.ofSeconds(60), () -> { });
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

    private void insertReachable(String id) {
        Instant now = w.ports.clock().instant();
        Cluster c = new Cluster(id, "acme", null, "pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "acct_platform", "shard-" + id.substring(id.length() - 6), null,
                ClusterMode.STANDARD, "us-central1-a", "us-central1", LocationType.ZONAL, ReleaseChannel.REGULAR, null, null, null,
                "127.0.0.1:6443", List.of(), false, null, null, ClusterState.READY, null, Ids.providerName(id),
                "user:alice@acme.example", "fp", 1, now, now, now, null, List.of(),
                new Cluster.Progress(null, null, null, 0, null, "Y2E=", null));
        w.ports.transactions().inTransaction(() -> {
            w.ports.clusters().insert(c);
            return null;
        });
    }
}
