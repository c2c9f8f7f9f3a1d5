package com.bettercompute.bootstrap;

import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.application.reconcile.ReconcileCluster.Pass;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.ReleaseChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The reconcile scheduler on the in-memory ports: it runs a pass again when the pass says, and closes gracefully. */
class ReconcileWorkerTest {
    static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    static final String ID = Ids.clusterId("acme", "user:alice", "key-1");

    final InMemoryPorts ports = InMemoryPorts.create();
    final InMemoryClusterProvider fake = new InMemoryClusterProvider(ports.clock(), Duration.ofMinutes(2));
    final CountDownLatch observing = new CountDownLatch(1);
    final CountDownLatch letObserve = new CountDownLatch(1);
    final List<Pass> passes = new CopyOnWriteArrayList<>();
    ReconcileWorker worker;

    ReconcileWorkerTest() {
        new LoadCatalog(ports.transactions(), ports.catalog(), ports.access()).load(new Catalog(
                List.of(new Provider("gcp", true)),
                List.of(new ProviderAccount("acct", "gcp", "platform", "platform-prod", List.of("us-central1-a"))),
                List.of(new Pool(POOL, "acct", PoolKind.PROVIDER, "provider", BillingMode.METERED)),
                List.of(new Offer(POOL, "acme", true, List.of())),
                List.of(new Tenant("acme", 10)),
                List.of(), List.of(), List.of(), List.of()));
        Instant now = ports.clock().instant();
        Cluster c = new Cluster(ID, "acme", null, POOL, "acct", "train", null, ClusterMode.AUTOPILOT, "us-central1", "us-central1",
                LocationType.REGIONAL, ReleaseChannel.REGULAR, null, null, null, null, List.of(), false, null, null, ClusterState.PENDING,
                null, Ids.providerName(ID), "user:alice", "fp", 1, now, now, null, null, List.of(), Cluster.Progress.NONE);
        ports.transactions().inTransaction(() -> {
            ports.clusters().insert(c);
            return null;
        });
    }

    @AfterEach
    void close() {
        letObserve.countDown();
        if (worker != null) {
            worker.close();
        }
    }

    ReconcileCluster reconcile(Cadence cadence, boolean blockFirstObserve) {
        var provider = new com.bettercompute.application.port.ClusterProvider() {
            @Override
            public ClusterObservation observe(ClusterLocator at) {
                if (blockFirstObserve) {
                    observing.countDown();
                    try {
                        letObserve.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return fake.observe(at);
            }

            // everything else straight to the fake
            public com.bettercompute.application.port.OperationStatus operation(ClusterLocator at, String name) {
                return fake.operation(at, name);
            }

            public String createCluster(com.bettercompute.application.port.ClusterSpec spec) {
                return fake.createCluster(spec);
            }

            public String updateCluster(ClusterLocator at, com.bettercompute.application.port.ClusterChange change) {
                return fake.updateCluster(at, change);
            }

            public String deleteCluster(ClusterLocator at) {
                return fake.deleteCluster(at);
            }

            public String createNodePool(ClusterLocator at, com.bettercompute.domain.cluster.NodePoolSpec pool) {
                return fake.createNodePool(at, pool);
            }

            public String resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
                return fake.resizeNodePool(at, pool, nodeCount);
            }

            public String setNodePoolAutoscaling(ClusterLocator at, String pool, com.bettercompute.domain.cluster.Autoscaling a) {
                return fake.setNodePoolAutoscaling(at, pool, a);
            }

            public String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, java.util.Map<String, String> labels,
                                                        List<com.bettercompute.domain.cluster.Taint> taints) {
                return fake.updateNodePoolLabelsAndTaints(at, pool, labels, taints);
            }

            public String deleteNodePool(ClusterLocator at, String pool) {
                return fake.deleteNodePool(at, pool);
            }

            public com.bettercompute.application.port.ServerConfig serverConfig(String project, String location) {
                return fake.serverConfig(project, location);
            }
        };
        return new ReconcileCluster(ports.transactions(), ports.clusters(), ports.catalog(), ports.access(), ports.outbox(),
                ports.usage(), account -> provider, cadence, ports.clock());
    }

    @Test
    void a_pass_runs_again_when_it_says_not_at_the_next_poll() throws Exception {
        CountDownLatch threePasses = new CountDownLatch(3);
        // one poll at the start, the next an hour later: only the passes' own times can bring the cluster back
        worker = new ReconcileWorker(ports.clusters(), reconcile(Cadence.of(Duration.ofMillis(20), Duration.ofHours(1)), false),
                ports.clock(), "replica-a", Duration.ofSeconds(60), Duration.ofHours(1), 2, Duration.ofSeconds(20),
                (pass, took) -> {
                    passes.add(pass);
                    threePasses.countDown();
                });
        assertThat(threePasses.await(60, TimeUnit.SECONDS)).as("passes rescheduled by their own next look").isTrue();
        assertThat(passes.get(0).outcome()).isEqualTo(ReconcileCluster.Outcome.ACCEPTED);
        assertThat(passes.get(1).outcome()).isEqualTo(ReconcileCluster.Outcome.SAVED);
        assertThat(passes.get(1).next()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void started_again_under_its_id_it_takes_back_at_once_the_lease_its_killed_process_left() throws Exception {
        // the lease a process killed in the middle of a pass left behind: an hour still to run
        Instant now = ports.clock().instant();
        assertThat(ports.clusters().claim(ID, "replica-a", now, now.plusSeconds(3600))).isTrue();
        CountDownLatch onePass = new CountDownLatch(1);
        worker = new ReconcileWorker(ports.clusters(), reconcile(Cadence.DEFAULT, false), ports.clock(), "replica-a",
                Duration.ofSeconds(60), Duration.ofMillis(10), 2, Duration.ofSeconds(20), (pass, took) -> {
                    passes.add(pass);
                    onePass.countDown();
                });
        assertThat(onePass.await(60, TimeUnit.SECONDS)).as("a pass before the old lease expired").isTrue();
        assertThat(passes.get(0).outcome()).isEqualTo(ReconcileCluster.Outcome.ACCEPTED);
    }

    @Test
    void another_replica_waits_for_the_lease_a_killed_one_left_to_expire() throws Exception {
        Instant now = ports.clock().instant();
        assertThat(ports.clusters().claim(ID, "replica-a", now, now.plusSeconds(3600))).isTrue();
        CountDownLatch threePolls = new CountDownLatch(3);
        List<Integer> dueSeen = new CopyOnWriteArrayList<>();
        worker = new ReconcileWorker(ports.clusters(), reconcile(Cadence.DEFAULT, false), ports.clock(), "replica-b",
                Duration.ofSeconds(60), Duration.ofMillis(10), 2, Duration.ofSeconds(20), new ReconcileWorker.Listener() {
                    @Override
                    public void onPass(Pass pass, Duration took) {
                        passes.add(pass);
                    }

                    @Override
                    public void onPoll(int due, int claimed) {
                        dueSeen.add(due);
                        threePolls.countDown();
                    }
                });
        assertThat(threePolls.await(60, TimeUnit.SECONDS)).isTrue();
        worker.close();
        assertThat(dueSeen).as("nothing due to another replica").containsOnly(0);
        assertThat(passes).isEmpty();
        assertThat(ports.clusters().find(ID).orElseThrow().state()).isEqualTo(ClusterState.PENDING);
    }

    @Test
    void close_stops_claiming_lets_the_pass_in_flight_finish_and_releases_its_lease() throws Exception {
        worker = new ReconcileWorker(ports.clusters(), reconcile(Cadence.DEFAULT, true), ports.clock(), "replica-a",
                Duration.ofSeconds(60), Duration.ofMillis(10), 2, Duration.ofSeconds(30), (pass, took) -> passes.add(pass));
        assertThat(observing.await(60, TimeUnit.SECONDS)).isTrue();
        Instant now = ports.clock().instant();
        assertThat(ports.clusters().claim(ID, "replica-b", now, now.plusSeconds(60))).as("held while the pass runs").isFalse();

        CompletableFuture<ClusterState> closed = CompletableFuture.supplyAsync(() -> {
            worker.close();
            return ports.clusters().find(ID).orElseThrow().state();
        });
        while (!worker.closing()) {
            Thread.onSpinWait();
        }
        letObserve.countDown();
        assertThat(closed.get(60, TimeUnit.SECONDS)).as("the pass in flight saved before close returned")
                .isEqualTo(ClusterState.PROVISIONING);
        assertThat(passes).hasSize(1);
        assertThat(ports.clusters().claim(ID, "replica-b", now, now.plusSeconds(60))).as("the lease was given back").isTrue();
    }
}
