package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.market.ReadMarketRequest;
import com.bettercompute.application.market.ReportNodeOutOfService;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.market.SetLimitPrice;
import com.bettercompute.application.port.MarketClusterClient.NodeTaint;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.reconcile.ProviderSpecs;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.market.NodeGrant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Grants become provider node pools and their nodes' facts reach the market, on in-memory ports. */
class ReconcileMarketNodesTest {
    static final String JOB = "train";

    final MarketWorld w = new MarketWorld();
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final InMemoryClusterProvider provider = new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(30));
    final ReconcileMarketNodes nodes = new ReconcileMarketNodes(w.ports.transactions(), w.markets, w.catalog,
            new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> provider), w.ports.catalog(),
            account -> provider, cluster, w.ports.outbox(), w.ports.clock());
    ClusterLocator at;

    @BeforeEach
    void grantTwoNodes() {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, null, null, null));
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);
        Cluster c = w.ports.clusters().find(MarketWorld.ACME_TRAIN).orElseThrow();
        at = ProviderSpecs.locator(c, w.ports.catalog().account(c.providerAccountId()).orElseThrow());
        provider.createCluster(new ClusterSpec(at, c.id(), ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(),
                false, null, null));
        settle();
        new SetLimitPrice(w.ports.transactions(), w.markets).set(new SetLimitPrice.Command(MarketWorld.ACME_TRAIN, null, "2.00"));
        w.file(JOB, MarketWorld.ACME_TRAIN, 16, null);
        w.tick.run();
    }

    void settle() {
        w.ports.clock().advance(Duration.ofMinutes(1));
    }

    List<String> marketPools() {
        return provider.observe(at).nodePools().stream().map(p -> p.name())
                .filter(n -> n.startsWith(ReconcileMarketNodes.POOL_PREFIX)).sorted().toList();
    }

    List<String> wantedPools() {
        return w.markets.load().liveGrants().stream().map(g -> ReconcileMarketNodes.poolName(g.clusterId(), g.nodeId()))
                .sorted().toList();
    }

    /** Passes until the provider has every pool (one change per pass, each taking a while). */
    void makePools() {
        for (int i = 0; i < 5; i++) {
            nodes.reconcile(MarketWorld.ACME_TRAIN);
            settle();
        }
    }

    /** Both pools made and their nodes Ready in the cluster, {@code gke-a-0} running {@code train-0}; one pass read them. */
    List<String> twoReadyNodes() {
        makePools();
        List<String> pools = marketPools();
        cluster.node("gke-a-0", pools.get(0), true);
        cluster.node("gke-b-0", pools.get(1), true);
        cluster.pod("gke-a-0", "research", "train-0");
        nodes.reconcile(MarketWorld.ACME_TRAIN);
        return pools;
    }

    @Test
    void a_cluster_the_market_has_no_node_in_asks_the_provider_only_at_a_sweep_or_when_a_market_node_shows() {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.GLOBEX_TRAIN, null, null, null));
        ReachableClusters.reachable(w.ports, MarketWorld.GLOBEX_TRAIN);
        ClusterConnections connections = new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> provider);
        Cluster idle = connections.cluster(MarketWorld.GLOBEX_TRAIN).orElseThrow();
        var connection = connections.of(MarketWorld.GLOBEX_TRAIN).orElseThrow();
        IntSupplier observes = () -> provider.callsByMethod().getOrDefault("observe", 0);
        int before = observes.getAsInt();

        nodes.reconcile(w.markets.load(), idle, connection, false);
        assertThat(observes.getAsInt()).as("nothing of the market's there: not asked").isEqualTo(before);
        nodes.reconcile(w.markets.load(), idle, connection, true);
        assertThat(observes.getAsInt()).as("a sweep asks").isEqualTo(before + 1);
        cluster.node("gke-left-0", ReconcileMarketNodes.POOL_PREFIX + "0123456789abcdef0123", true);
        nodes.reconcile(w.markets.load(), idle, connection, false);
        assertThat(observes.getAsInt()).as("a market node left over in it: asked").isEqualTo(before + 2);
    }

    @Test
    void each_grant_becomes_one_pool_named_from_it_one_provider_change_per_pass_and_a_replay_makes_none_twice() {
        var first = nodes.reconcile(MarketWorld.ACME_TRAIN);
        var whileBusy = nodes.reconcile(MarketWorld.ACME_TRAIN);
        assertThat(first.created()).hasSize(1);
        assertThat(whileBusy.created()).isEmpty();

        makePools();

        assertThat(marketPools()).hasSize(2).isEqualTo(wantedPools());
        assertThat(provider.callsByMethod().get("createNodePool")).isEqualTo(2);
        var afterRestart = new ReconcileMarketNodes(w.ports.transactions(), w.markets, w.catalog,
                new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> provider), w.ports.catalog(),
                account -> provider, cluster, w.ports.outbox(), w.ports.clock());
        assertThat(afterRestart.reconcile(MarketWorld.ACME_TRAIN).created()).as("a restart adopts its pools").isEmpty();
        assertThat(provider.callsByMethod().get("createNodePool")).isEqualTo(2);
    }

    @Test
    void a_block_node_joins_as_a_pool_of_its_own_labelled_for_the_block_and_its_ready_makes_the_block_live() {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, null, true, new EnrolCluster.Block(MarketWorld.POOL, 1)));
        String blockNode = w.markets.load().cluster(MarketWorld.ACME_TRAIN).blockNodeIds().get(0);
        String blockPool = ReconcileMarketNodes.poolName(MarketWorld.ACME_TRAIN, blockNode);
        makePools();
        assertThat(marketPools()).contains(blockPool).hasSize(3);
        assertThat(w.markets.load().node(blockNode).liveBlockNode()).as("not live before its node is ready").isFalse();

        cluster.node("gke-block-0", blockPool, true);
        var outcome = nodes.reconcile(MarketWorld.ACME_TRAIN);

        assertThat(outcome.ready()).containsExactly(blockNode);
        assertThat(cluster.nodes.get("gke-block-0").labels()).containsEntry("nationalcompute.com/base-load-block", "true")
                .containsEntry("nationalcompute.com/market-node", "true").containsEntry("nationalcompute.com/node-class", "h100-8x")
                .doesNotContainKey("nationalcompute.com/request");
        assertThat(cluster.nodes.get("gke-block-0").taints())
                .containsExactly(new NodeTaint("nationalcompute.com/gpu-worker", "true", "NoSchedule"));
        assertThat(w.markets.load().node(blockNode).liveBlockNode()).isTrue();
        assertThat(w.ports.outbox().all()).extracting(e -> e.event().type()).containsOnlyOnce("market.block-node.ready");

        cluster.nodes.remove("gke-block-0");
        assertThat(nodes.reconcile(MarketWorld.ACME_TRAIN).left()).containsExactly(blockNode);
        assertThat(w.markets.load().node(blockNode).liveBlockNode()).isFalse();
        assertThat(marketPools()).as("the block's pool stays: the node comes back to it").contains(blockPool);
    }

    @Test
    void a_node_carries_the_market_labels_and_the_gpu_worker_taint_and_its_ready_is_the_markets_node_ready() {
        makePools();
        List<String> pools = marketPools();
        cluster.node("gke-a-0", pools.get(0), false);
        cluster.node("gke-b-0", pools.get(1), true);

        var outcome = nodes.reconcile(MarketWorld.ACME_TRAIN);

        assertThat(outcome.ready()).hasSize(1);
        var a = cluster.nodes.get("gke-a-0");
        assertThat(a.labels()).containsEntry("nationalcompute.com/market-node", "true")
                .containsEntry("nationalcompute.com/node-class", "h100-8x")
                .containsEntry("nationalcompute.com/request", InClusterNames.requestLabel(JOB));
        assertThat(a.taints()).containsExactly(new NodeTaint("nationalcompute.com/gpu-worker", "true", "NoSchedule"));
        assertThat(new ReadMarketRequest(w.markets).read(JOB).reason()).isEqualTo("Provisioning");

        cluster.node("gke-a-0", pools.get(0), true);
        nodes.reconcile(MarketWorld.ACME_TRAIN);
        nodes.reconcile(MarketWorld.ACME_TRAIN);

        assertThat(new ReadMarketRequest(w.markets).read(JOB).reason()).isEqualTo("Provisioned");
        assertThat(w.markets.load().liveGrants()).allSatisfy(g -> assertThat(g.readyAt()).isNotNull());
        assertThat(w.ports.outbox().all()).as("each node's ready once in the outbox, then the gang's")
                .extracting(e -> e.event().type())
                .filteredOn(t -> t.equals("market.node.ready") || t.equals("market.request.provisioned"))
                .containsExactly("market.node.ready", "market.node.ready", "market.request.provisioned");
    }

    @Test
    void a_ready_node_that_leaves_revokes_its_gang_and_the_released_pools_are_deleted() {
        makePools();
        List<String> pools = marketPools();
        cluster.node("gke-a-0", pools.get(0), true);
        cluster.node("gke-b-0", pools.get(1), true);
        nodes.reconcile(MarketWorld.ACME_TRAIN);
        settle();
        cluster.nodes.remove("gke-a-0");

        assertThat(nodes.reconcile(MarketWorld.ACME_TRAIN).left()).hasSize(1);
        assertThat(w.ports.outbox().all()).extracting(e -> e.event().type()).containsOnlyOnce("market.node.left");
        w.tick.run();
        w.ports.clock().advance(Duration.ofMinutes(5));
        w.tick.run();
        for (int i = 0; i < 5; i++) {
            nodes.reconcile(MarketWorld.ACME_TRAIN);
            settle();
        }

        List<NodeGrant> live = w.markets.load().liveGrants();
        assertThat(marketPools()).isEqualTo(wantedPools()).hasSize(live.size());
        assertThat(marketPools()).doesNotContain(pools.get(0));
    }

    @Test
    void a_notice_cordons_taints_annotates_and_evicts_with_the_time_left_and_a_rescind_undoes_it() {
        List<String> pools = twoReadyNodes();
        w.ports.clock().advance(Duration.ofHours(3));
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.GLOBEX_TRAIN, 64L, null, null));
        var credited = w.markets.load();
        credited.credit("globex", com.bettercompute.domain.market.Money.usd(10_000));
        w.markets.save(credited);
        new SetLimitPrice(w.ports.transactions(), w.markets).set(new SetLimitPrice.Command(MarketWorld.GLOBEX_TRAIN, null, "3.00"));
        w.file("rival", MarketWorld.GLOBEX_TRAIN, 32, null);
        w.tick.run();
        var deadline = new ReadMarketRequest(w.markets).read(JOB).noticeDeadline();
        assertThat(deadline).as("the rival's bid reclaims acme's gang with notice").isNotNull();
        w.ports.clock().advance(Duration.ofSeconds(15));
        cluster.pod("gke-b-0", "research", "train-1");

        nodes.reconcile(MarketWorld.ACME_TRAIN);
        nodes.reconcile(MarketWorld.ACME_TRAIN);

        var a = cluster.nodes.get("gke-a-0");
        assertThat(a.unschedulable()).isTrue();
        assertThat(a.taints()).contains(new NodeTaint("nationalcompute.com/preempting", "true", "NoSchedule"));
        assertThat(cluster.pods.get("gke-a-0").get(0).annotations())
                .containsEntry("marketplace.nationalcompute.com/preempt-at", deadline.toString());
        assertThat(cluster.evictions).containsExactly(java.util.Map.entry("train-0", 45L), java.util.Map.entry("train-1", 45L));
        assertThat(cluster.eventsWithReason("NodePreempting")).extracting(e -> e.eventName())
                .anySatisfy(n -> assertThat(n).startsWith("gke-a-0."))
                .anySatisfy(n -> assertThat(n).startsWith("train-0."))
                .anySatisfy(n -> assertThat(n).startsWith("gke-b-0."))
                .anySatisfy(n -> assertThat(n).startsWith("train-1."));
        assertThat(cluster.eventsWithReason("NodePreempting")).as("every node and pod of the gang at the notice's moment")
                .hasSize(4).extracting(e -> e.at()).containsOnly(deadline.minus(w.markets.load().timings().notice()));
        assertThat(cluster.objectsOf("NodePreempting")).filteredOn(o -> o.kind().equals("Node")).isNotEmpty()
                .allSatisfy(o -> assertThat(o.uid()).as("the node's name, as the kubelet names it").isEqualTo(o.name()))
                .anySatisfy(o -> assertThat(o.name()).isEqualTo("gke-a-0"));

        var m = w.markets.load();
        m.endJob("rival", w.ports.clock().instant());
        w.markets.save(m);
        w.tick.run();
        nodes.reconcile(MarketWorld.ACME_TRAIN);

        a = cluster.nodes.get("gke-a-0");
        assertThat(a.unschedulable()).isFalse();
        assertThat(a.taints()).containsExactly(new NodeTaint("nationalcompute.com/gpu-worker", "true", "NoSchedule"));
        assertThat(cluster.eventsWithReason("PreemptionRescinded")).hasSize(2);
    }

    @Test
    void a_node_out_of_service_stays_cordoned_and_tainted_its_pods_evicted_with_the_grace_and_its_replacement_keeps_the_window() {
        List<String> pools = twoReadyNodes();
        NodeGrant failed = w.markets.load().liveGrants().stream()
                .filter(g -> ReconcileMarketNodes.poolName(g.clusterId(), g.nodeId()).equals(pools.get(0))).findFirst().orElseThrow();
        w.ports.clock().advance(Duration.ofMinutes(20));
        new ReportNodeOutOfService(w.ports.transactions(), w.markets, w.ports.outbox(), w.ports.clock())
                .report(new ReportNodeOutOfService.Command(failed.nodeId()));
        w.ports.clock().advance(Duration.ofSeconds(15));

        nodes.reconcile(MarketWorld.ACME_TRAIN);

        var a = cluster.nodes.get("gke-a-0");
        assertThat(a.unschedulable()).isTrue();
        assertThat(a.annotations()).containsEntry(MarketClusterClient.Cordon.MARK, "true");
        assertThat(a.taints()).contains(new NodeTaint("nationalcompute.com/out-of-service", "true", "NoSchedule"));
        assertThat(a.labels()).as("the replacement carries the request's label").doesNotContainKey("nationalcompute.com/request");
        assertThat(cluster.evictions).as("the 60-second grace, 15 s of it gone").containsExactly(Map.entry("train-0", 45L));
        assertThat(cluster.eventsWithReason("NodeOutOfService")).extracting(e -> e.eventName())
                .anySatisfy(n -> assertThat(n).startsWith("gke-a-0."))
                .anySatisfy(n -> assertThat(n).startsWith("train-0."));
        assertThat(new ReadMarketRequest(w.markets).read(JOB).reason()).as("nothing changes on the request")
                .isEqualTo("Provisioned");

        w.tick.run();
        makePools();

        NodeGrant replacement = w.markets.load().liveGrants().stream().filter(NodeGrant::replacement).findFirst().orElseThrow();
        assertThat(replacement.protectedUntil()).as("what is left of the failed node's window, not a fresh one")
                .isEqualTo(failed.protectedUntil());
        assertThat(replacement.lockedRate()).isEqualTo(failed.lockedRate());
        assertThat(marketPools()).as("the failed node stays in the cluster while investigated").contains(pools.get(0))
                .contains(ReconcileMarketNodes.poolName(MarketWorld.ACME_TRAIN, replacement.nodeId()));
    }

    @Test
    void a_tenants_own_cordon_of_a_market_node_stays_as_the_tenant_set_it() {
        twoReadyNodes();
        var served = cluster.nodes.get("gke-a-0");
        cluster.nodes.put("gke-a-0", new MarketClusterClient.ClusterNode(served.name(), served.labels(), served.annotations(),
                true, true, served.taints()));

        nodes.reconcile(MarketWorld.ACME_TRAIN);
        w.tick.run();
        nodes.reconcile(MarketWorld.ACME_TRAIN);

        assertThat(cluster.nodes.get("gke-a-0").unschedulable()).isTrue();
        assertThat(cluster.nodes.get("gke-a-0").annotations()).doesNotContainKey(MarketClusterClient.Cordon.MARK);
        assertThat(new ReadMarketRequest(w.markets).read(JOB).reason()).isEqualTo("Provisioned");
        assertThat(w.markets.load().liveGrants()).as("the node keeps billing; no replacement is owed").hasSize(2)
                .noneMatch(NodeGrant::replacement);
    }
}
