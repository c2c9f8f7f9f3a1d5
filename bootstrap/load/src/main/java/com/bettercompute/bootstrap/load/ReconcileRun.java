package com.bettercompute.bootstrap.load;

import com.bettercompute.adapters.gke.GkeClusterProvider;
import com.bettercompute.adapters.gke.GkeClusterProviders;
import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.bootstrap.ReconcileWorker;
import com.bettercompute.bootstrap.catalog.CatalogFile;
import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The reconciler under load, in one process, against the in-process GKE simulator over gRPC (as the
 * embedded default runs): how long N Standard clusters (one node pool each) take from {@code pending} to
 * {@code ready}, and how many passes per second one process sustains over N ready clusters that are
 * always due; the provider calls each pass makes, counted on the wire. The floor, measured in the same run:
 * bare {@code observe} calls (one GetCluster) to the simulator on as many threads (a pass of a ready cluster
 * makes one observe plus two or three database round trips).
 *
 * <pre>java -cp bootstrap/load/target/better-compute-load.jar com.bettercompute.bootstrap.load.ReconcileRun [--clusters N] [--seconds S] [--threads T] [--operation-millis M]</pre>
 */
public final class ReconcileRun {
    private ReconcileRun() {}

    public static void main(String[] args) throws Exception {
        Map<String, Integer> o = new LinkedHashMap<>(Map.of("clusters", 1000, "seconds", 10, "threads", 4, "operation-millis", 1000));
        for (int i = 0; i + 1 < args.length; i += 2) {
            String name = args[i].replaceFirst("^--", "");
            if (!o.containsKey(name)) {
                System.err.println("options: --clusters N --seconds S --threads T --operation-millis M");
                System.exit(2);
            }
            o.put(name, Integer.parseInt(args[i + 1]));
        }
        run(o.get("clusters"), o.get("seconds"), o.get("threads"), Duration.ofMillis(o.get("operation-millis")), System.out);
        System.exit(0);
    }

    static void run(int n, int seconds, int threads, Duration operation, PrintStream out) throws Exception {
        Path dir = Files.createTempDirectory("reconcile-run");
        Clock clock = Clock.systemUTC();
        try (Database db = Database.open("jdbc:h2:file:" + dir.resolve("bc"));
             GkeSimulator simulator = GkeSimulator.start(clock, operation, 0, 0, GkeSimulatorCommand.SLEEP);
             GkeClusterProvider provider = GkeClusterProviders.grpc(new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT, null))) {
            new LoadCatalog(db.transactions(), db.catalog(), db.access()).load(CatalogFile.parse(catalog(n)));
            Authorizer authorizer = new Authorizer(db.access());
            Caller caller = new Authenticate(db.access()).byToken("reconcile-run-token");
            CreateCluster create = new CreateCluster(db.clusters(), db.catalog(), authorizer, clock);
            for (int i = 0; i < n; i++) {
                create.create(caller, command("c" + i));
            }
            ReconcileCluster converging = new ReconcileCluster(db.transactions(), db.clusters(), db.catalog(), db.access(), db.outbox(),
                    db.usage(), account -> provider, Cadence.of(Duration.ofSeconds(1), Duration.ofSeconds(3600)), clock);
            CallsPerPass toReadyCalls = new CallsPerPass();
            long start = System.nanoTime();
            double toReady;
            long passesToReady;
            long wireToReady;
            try (ReconcileWorker worker = new ReconcileWorker(db.clusters(), converging, clock, "run", Duration.ofSeconds(60),
                    Duration.ofMillis(100), threads, Duration.ofSeconds(20), toReadyCalls)) {
                while (db.clusters().list(new ClusterFilter("run", null, null, false), n + 1).stream()
                        .anyMatch(c -> c.state() != ClusterState.READY)) {
                    if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(30)) {
                        throw new IllegalStateException("not every cluster was ready after 30 minutes");
                    }
                    Thread.sleep(250);
                }
                toReady = (System.nanoTime() - start) / 1e9;
                passesToReady = worker.passes();
                // every call the simulator received, by GKE method: the provider calls, counted on the wire
                wireToReady = total(simulator.grpcCalls());
            }

            // Sustained passes: every ready cluster is due now and again at once after each pass (settled interval 0).
            db.jdbi().useHandle(h -> h.execute("UPDATE clusters SET next_reconcile_at = NULL"));
            ReconcileCluster busy = new ReconcileCluster(db.transactions(), db.clusters(), db.catalog(), db.access(), db.outbox(),
                    db.usage(), account -> provider, Cadence.of(Duration.ofSeconds(1), Duration.ZERO), clock);
            CallsPerPass sustainedCalls = new CallsPerPass();
            double passesPerSecond;
            double wirePerPass;
            Map<String, Long> sustainedByMethod;
            try (ReconcileWorker worker = new ReconcileWorker(db.clusters(), busy, clock, "run-2", Duration.ofSeconds(60),
                    Duration.ofMillis(20), threads, Duration.ofSeconds(20), sustainedCalls)) {
                Thread.sleep(2000);
                long before = worker.passes();
                Map<String, Long> wireBefore = simulator.grpcCalls();
                long t0 = System.nanoTime();
                Thread.sleep(seconds * 1000L);
                long done = worker.passes() - before;
                passesPerSecond = done / ((System.nanoTime() - t0) / 1e9);
                sustainedByMethod = minus(simulator.grpcCalls(), wireBefore);
                wirePerPass = sustainedByMethod.values().stream().mapToLong(Long::longValue).sum() / (double) Math.max(1, done);
            }

            // The floor: bare observe calls (one GetCluster) on as many threads; and, for comparison, the observe
            // of before (GetCluster + ListOperations of the whole location).
            List<Cluster> clusters = db.clusters().list(new ClusterFilter("run", null, null, false), n);
            List<ClusterLocator> at = new ArrayList<>();
            for (Cluster c : clusters) {
                at.add(new ClusterLocator("reconcile-run", c.location(), c.providerName()));  // Standard: zonal as asked
            }
            double observesPerSecond = callsPerSecond(threads, seconds, i -> provider.observe(at.get(i % at.size())));
            double oldObservesPerSecond = callsPerSecond(threads, seconds, i -> {
                provider.operation(at.get(i % at.size()), null);
                provider.observe(at.get(i % at.size()));
            });

            out.printf(Locale.ROOT, "reconcile run: %d standard clusters (1 node pool each), %d worker threads, simulator operations of %d ms%n",
                    n, threads, operation.toMillis());
            out.printf(Locale.ROOT, "  pending -> ready, all %d: %.1f s (%d passes, %.1f passes/cluster)%n",
                    n, toReady, passesToReady, passesToReady / (double) n);
            out.printf(Locale.ROOT, "    provider calls on the wire: %d, %.2f per pass; passes by port calls: %s%n",
                    wireToReady, wireToReady / (double) Math.max(1, passesToReady), toReadyCalls);
            out.printf(Locale.ROOT, "  sustained passes over ready clusters: %.0f passes/s%n", passesPerSecond);
            out.printf(Locale.ROOT, "    provider calls on the wire: %.2f per pass %s; passes by port calls: %s%n",
                    wirePerPass, sustainedByMethod, sustainedCalls);
            out.printf(Locale.ROOT, "  floor, bare observe calls (GetCluster) to the simulator: %.0f calls/s%n", observesPerSecond);
            out.printf(Locale.ROOT, "  the observe of before (GetCluster + ListOperations), for comparison: %.0f calls/s%n", oldObservesPerSecond);
            out.printf(Locale.ROOT, "  passes / floor: %.2f%n", passesPerSecond / observesPerSecond);
        } finally {
            deleteTree(dir);
        }
    }

    /** How many passes made 0, 1, 2, 3 … port calls. */
    private static final class CallsPerPass implements ReconcileWorker.Listener {
        private final Map<Integer, LongAdder> passes = new ConcurrentSkipListMap<>();

        @Override
        public void onPass(ReconcileCluster.Pass pass, Duration took) {
            passes.computeIfAbsent(pass.providerCalls(), k -> new LongAdder()).increment();
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("{");
            passes.forEach((calls, count) -> b.append(b.length() > 1 ? ", " : "").append(calls).append(" calls: ").append(count.sum()));
            return b.append('}').toString();
        }
    }

    private static double callsPerSecond(int threads, int seconds, java.util.function.IntConsumer call) throws InterruptedException {
        AtomicLong calls = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (int t = 0; t < threads; t++) {
            int offset = t;
            pool.execute(() -> {
                int i = offset;
                while (System.nanoTime() < deadline) {
                    call.accept(i++);
                    calls.incrementAndGet();
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(seconds + 30L, TimeUnit.SECONDS);
        return calls.get() / (double) seconds;
    }

    private static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> diff = new TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d > 0) {
                diff.put(k, d);
            }
        });
        return diff;
    }

    static CreateClusterCommand command(String name) {
        return new CreateClusterCommand("run", null, "pool_01hzx8k3v4w5y6z7a8b9c0d1e2", name, ClusterMode.STANDARD, "us-central1-a",
                ReleaseChannel.REGULAR, null, null, List.of(), false, null,
                List.of(new NodePoolSpec("gpu", "a3-highgpu-8g", 1, null, NodePoolSpec.DEFAULT_DISK_GIB, NodePoolSpec.DEFAULT_DISK_TYPE,
                        false, null, List.of(), Map.of(), List.of())), name);
    }

    static String catalog(int n) {
        return String.join("\n",
                "providers: [{id: gcp, managedKubernetes: true}]",
                "accounts: [{id: acct, provider: gcp, owner: platform, cloudProject: reconcile-run, zones: [us-central1-a]}]",
                "pools: [{id: pool_01hzx8k3v4w5y6z7a8b9c0d1e2, account: acct, kind: provider, billingMode: metered, offers: [{tenant: run, state: active}]}]",
                "tenants: [{id: run, maxClusters: " + Math.max(10, n) + "}]",
                "principals: [{id: 'service:run', token: reconcile-run-token, bindings: [{tenant: run, role: kubernetes-admin}]}]", "");
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
