package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryInClusterLeases;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient.Job;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient.Request;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.market.SetLimitPrice;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.reconcile.ProviderSpecs;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.NodeGrant;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Deployment's GPU replicas and bare GPU pods in the market, through passes of the in-cluster loop on in-memory
 * ports. Kueue's pod integration makes each gated pod a Workload of its own with its own ProvisioningRequest, so
 * each is its own request: a replica scaled up files one, a replica scaled away ends its own and its node leaves
 * only after the idle grace; one smaller than a node waits for the base load block and is seated on its node.
 */
class ReplicaDemandTest {
    static final String ACME = MarketWorld.ACME_TRAIN;
    static final String TEMPLATE_HASH = "serve-6b4c9d8f7d-";

    final MarketWorld w = new MarketWorld();
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final InMemoryClusterProvider provider = new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1));
    final ClusterConnections connections = new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> provider);
    CarryMarketIntoClusters loop;
    ClusterLocator at;

    /** Acme's cluster enrolled (packing and block as given), reachable, with a limit price of 2.00, and the loop over it. */
    void enrol(boolean packing, EnrolCluster.Block block) {
        w.enrol.enrol(new EnrolCluster.Command(ACME, null, packing, block));
        ReachableClusters.reachable(w.ports, ACME);
        Cluster c = w.ports.clusters().find(ACME).orElseThrow();
        at = ProviderSpecs.locator(c, w.ports.catalog().account(c.providerAccountId()).orElseThrow());
        provider.createCluster(new ClusterSpec(at, c.id(), ClusterMode.STANDARD, ReleaseChannel.REGULAR, null, List.of(),
                false, null, null));
        w.ports.clock().advance(Duration.ofMinutes(1));
        new SetLimitPrice(w.ports.transactions(), w.markets).set(new SetLimitPrice.Command(ACME, null, "2.00"));
        var p = w.ports;
        var steps = new CarryMarketIntoClusters.Steps(new KeepClusterComponents(connections, cluster),
                new KeepPlatformObjects(w.markets, connections, cluster),
                new SyncClusterDemand(p.transactions(), w.markets, p.outbox(), p.clock()),
                new PublishRequestStatus(w.markets, cluster, p.clock()),
                new ReconcileMarketNodes(p.transactions(), w.markets, w.catalog, connections, p.catalog(), account -> provider,
                        cluster, p.outbox(), p.clock()));
        loop = new CarryMarketIntoClusters(w.markets, new InMemoryInClusterLeases(), connections, cluster, steps, p.clock(),
                "r1", Duration.ofMinutes(10), Duration.ofMinutes(1), 4, () -> { });
    }

    /** A gated pod Kueue filed a request for, as its pod integration does for a replica or a bare pod. */
    Job gatedPod(String name, int gpus) {
        Job pod = cluster.gatedPod("research", name, gpus, "h100-8x");
        cluster.request(pod, "pod-" + name + "-1a2b3-market-1", w.ports.clock().instant());
        return pod;
    }

    Job replica(String suffix, int gpus) {
        return gatedPod(TEMPLATE_HASH + suffix, gpus);
    }

    static String jobId(Job pod) {
        return InClusterNames.jobId(ACME, pod.ref);
    }

    Request requestOf(Job pod) {
        return cluster.request(pod.ref.namespace(), pod.requests.get(0));
    }

    Market market() {
        return w.markets.load();
    }

    /**
     * Passes of the loop two seconds apart. The provider makes the pools the loop asks for; with {@code nodesJoin}
     * each pool's node joins the cluster Ready, and a deleted pool's node leaves it.
     */
    void passes(boolean nodesJoin) {
        for (int i = 0; i < 8; i++) {
            loop.pass();
            List<String> pools = marketPools();
            cluster.nodes.values().removeIf(n -> !pools.contains(n.labels().get(MarketClusterClient.NODE_POOL_LABEL)));
            if (nodesJoin) {
                pools.stream().filter(pool -> !cluster.nodes.containsKey("gke-" + pool))
                        .forEach(pool -> cluster.node("gke-" + pool, pool, true));
            }
            w.ports.clock().advance(Duration.ofSeconds(2));
        }
    }

    List<String> marketPools() {
        return provider.observe(at).nodePools().stream().map(p -> p.name())
                .filter(n -> n.startsWith(ReconcileMarketNodes.POOL_PREFIX)).sorted().toList();
    }

    String poolOf(Job pod) {
        List<String> nodes = market().openRequest(jobId(pod)).grantedNodeIds();
        assertThat(nodes).hasSize(1);
        return ReconcileMarketNodes.poolName(ACME, nodes.get(0));
    }

    /** Two whole-node replicas and a third scaled up, all granted and running on nodes of their own. */
    List<Job> threeReplicasOnTheirNodes() {
        enrol(false, null);
        Job a = replica("a", 8);
        Job b = replica("b", 8);
        passes(true);
        assertThat(market().openRequests()).extracting(MarketRequest::jobId).containsExactlyInAnyOrder(jobId(a), jobId(b));
        assertThat(market().openRequests()).allSatisfy(r -> assertThat(r.nodes()).isEqualTo(1));
        w.tick.run();
        passes(true);
        assertThat(marketPools()).containsExactlyInAnyOrder(poolOf(a), poolOf(b));

        Job c = replica("c", 8);
        passes(true);
        assertThat(w.ports.outbox().all()).as("the scale-up files one more request, its own")
                .filteredOn(e -> e.event().type().equals("market.request.received")).hasSize(3)
                .last().satisfies(e -> assertThat(e.event().data()).containsEntry("jobId", jobId(c)).containsEntry("gpus", 8));
        w.tick.run();
        passes(true);
        assertThat(marketPools()).containsExactlyInAnyOrder(poolOf(a), poolOf(b), poolOf(c));
        assertThat(List.of(a, b, c)).allSatisfy(p -> assertThat(requestOf(p).conditions.get("Provisioned").status()).isEqualTo("True"));
        return List.of(a, b, c);
    }

    @Test
    void each_gated_replica_files_its_own_request_and_a_replica_scaled_away_leaves_its_node_only_after_the_idle_grace() {
        List<Job> replicas = threeReplicasOnTheirNodes();
        Job c = replicas.get(2);
        String pool = poolOf(c);
        String node = market().openRequest(jobId(c)).grantedNodeIds().get(0);
        w.ports.clock().advance(Duration.ofHours(1).plusMinutes(1));

        // scaled down by one: the ReplicaSet deletes the pod, Kueue its Workload and request
        cluster.delete(c);
        passes(true);
        assertThat(market().hasOpenRequest(jobId(c))).isFalse();
        assertThat(market().hasOpenRequest(jobId(replicas.get(0)))).isTrue();
        w.ports.clock().advance(Duration.ofMinutes(4));
        w.tick.run();
        passes(true);
        assertThat(marketPools()).as("idle, its node stays through the grace").contains(pool).hasSize(3);
        assertThat(market().node(node).grant().idle()).isTrue();

        w.ports.clock().advance(Duration.ofMinutes(1));
        w.tick.run();
        passes(true);
        assertThat(w.effects.applied(MarketEvent.NodeReleased.class)).extracting(MarketEvent.NodeReleased::nodeId)
                .containsExactly(node);
        assertThat(marketPools()).as("the released node's pool is deleted").doesNotContain(pool).hasSize(2);
        assertThat(cluster.nodes).doesNotContainKey("gke-" + pool);
    }

    @Test
    void a_replica_made_again_within_the_idle_grace_takes_the_idle_node_and_no_new_pool() {
        List<Job> replicas = threeReplicasOnTheirNodes();
        String pool = poolOf(replicas.get(2));
        cluster.delete(replicas.get(2));
        passes(true);
        w.ports.clock().advance(Duration.ofMinutes(2));

        Job again = replica("d", 8);
        passes(true);
        w.tick.run();
        passes(true);

        assertThat(poolOf(again)).isEqualTo(pool);
        assertThat(marketPools()).hasSize(3);
        assertThat(requestOf(again).conditions.get("Provisioned").status()).isEqualTo("True");
        assertThat(market().liveGrants()).noneMatch(NodeGrant::idle);
    }

    @Test
    void a_statefulset_replica_scaled_away_and_back_files_again_under_its_stable_name() {
        enrol(false, null);
        Job first = gatedPod("infer-1", 8);
        passes(true);
        w.tick.run();
        passes(true);
        cluster.delete(first);
        passes(true);
        assertThat(market().hasOpenRequest(jobId(first))).isFalse();

        // scaled back up: the StatefulSet makes infer-1 again, a new pod with a new Workload and request
        Job again = gatedPod("infer-1", 8);
        passes(true);
        w.tick.run();
        passes(true);

        assertThat(jobId(again)).isEqualTo(jobId(first));
        MarketRequest request = market().openRequest(jobId(again));
        assertThat(request.phase()).isEqualTo(com.bettercompute.domain.market.RequestPhase.ADMITTED);
        assertThat(request.grantedNodeIds()).hasSize(1);
        assertThat(requestOf(again).conditions.get("Provisioned").status()).isEqualTo("True");
        assertThat(requestOf(again).marketRequest).isEqualTo(request.id());
    }

    @Test
    void a_sub_node_replica_and_a_bare_sub_node_pod_wait_for_the_block_then_are_seated_on_its_ready_node() {
        enrol(true, new EnrolCluster.Block(MarketWorld.POOL, 1));
        String blockPool = ReconcileMarketNodes.poolName(ACME, market().cluster(ACME).blockNodeIds().get(0));
        Job replica = replica("a", 4);
        Job bare = gatedPod("notebook", 4);

        passes(false);
        w.tick.run();
        passes(false);
        assertThat(marketPools()).as("the block node's pool is made; its node is not Ready yet").containsExactly(blockPool);
        assertThat(List.of(replica, bare)).allSatisfy(p -> {
            Condition waiting = requestOf(p).conditions.get("Provisioned");
            assertThat(waiting.status()).isEqualTo("False");
            assertThat(waiting.reason()).isEqualTo("WaitingForBaseLoadBlock");
            assertThat(requestOf(p).classDetails).isEmpty();
        });

        passes(true);
        w.tick.run();
        passes(true);
        assertThat(List.of(replica, bare)).allSatisfy(p -> {
            assertThat(requestOf(p).conditions.get("Provisioned").status()).isEqualTo("True");
            assertThat(requestOf(p).classDetails).containsExactly(Map.entry("nationalcompute.com/block-node", blockPool));
        });
        assertThat(marketPools()).as("seated on the block: no node of their own").containsExactly(blockPool);

        Job third = replica("b", 4);
        passes(true);
        w.tick.run();
        passes(true);
        Condition full = requestOf(third).conditions.get("Provisioned");
        assertThat(full.status()).as("the block node's 8 GPUs are taken: the third replica waits").isEqualTo("False");
        assertThat(requestOf(third).classDetails).isEmpty();
    }
}
