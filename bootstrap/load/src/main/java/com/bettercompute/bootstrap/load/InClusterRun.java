package com.bettercompute.bootstrap.load;

import com.bettercompute.adapters.http.AdmissionKeys;
import com.bettercompute.adapters.http.AdmissionServer;
import com.bettercompute.adapters.k8s.Fabric8MarketClusterClient;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.admission.AdmitWorkload;
import com.bettercompute.application.admission.MutateWorkload;
import com.bettercompute.application.admission.ReadMarketFacts;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.incluster.CarryMarketIntoClusters;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.market.EnrolReadyCluster;
import com.bettercompute.application.market.LoadMarketCatalog;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.bootstrap.AdmissionConfig;
import com.bettercompute.bootstrap.InClusterMarketLoop;
import com.bettercompute.bootstrap.MarketModule;
import com.bettercompute.bootstrap.PathTokens;
import com.bettercompute.bootstrap.ReconcileWorker;
import com.bettercompute.bootstrap.catalog.CatalogFile;
import com.bettercompute.bootstrap.gke.GkeProviderSetup;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The market inside many tenant clusters, in one process, as the server runs it: an H2 file database, the in-process
 * GKE simulator with its simulated Kubernetes APIs (Kueue, the Job controller and the add-ons' controllers played by
 * the simulator), N market-managed Standard clusters made ready by the reconciler and enrolled by it, the admission
 * webhooks served over HTTPS, and {@link CarryMarketIntoClusters} wired as the server wires it, with the server's
 * fabric8 client. Once the market's add-ons are ready and every demand watch has synced, it measures, each against
 * a floor taken in the same run:
 * <ul>
 *   <li>a pass over N clusters, against one bare {@code GET /api/v1/nodes} per cluster on a kept-alive connection
 *       (a pass reads each cluster's nodes at least once, so this is what it cannot go below) and against one
 *       {@code markets.load()} on the same database (what a pass reads once, whatever N);</li>
 *   <li>heap per cluster held by the platform (measured after full collections, with the watches and without),
 *       against the heap the simulated API of the same cluster holds for its objects;</li>
 *   <li>connections to the simulated API per cluster, against the informers a watch runs (one watch each);</li>
 *   <li>time from a ProvisioningRequest appearing (Kueue's, for a Job submitted to one cluster) to the first verdict
 *       on it, with the server's loop (a pass every 5 s and on every change a watch sees), against one pass;</li>
 * </ul>
 * then the same with two replicas on the one database (two {@link CarryMarketIntoClusters} of different owners, each
 * with its share of the clusters).
 *
 * <pre>java -Xmx4g -cp bootstrap/load/target/better-compute-load.jar com.bettercompute.bootstrap.load.InClusterRun [--clusters N] [--passes P] [--jobs J] [--operation-millis M] [--concurrency C]</pre>
 */
public final class InClusterRun {
    private static final ResourceDefinitionContext PROVISIONING_REQUESTS = new ResourceDefinitionContext.Builder()
            .withGroup("autoscaling.x-k8s.io").withVersion("v1").withKind("ProvisioningRequest")
            .withPlural("provisioningrequests").withNamespaced(true).build();
    /** How long the whole set-up (clusters ready, add-ons ready, watches synced) may take. */
    private static final Duration PATIENCE = Duration.ofMinutes(40);

    private InClusterRun() {}

    public static void main(String[] args) throws Exception {
        Map<String, Integer> o = new LinkedHashMap<>(Map.of("clusters", 1000, "passes", 5, "jobs", 5, "operation-millis", 1000,
                "concurrency", CarryMarketIntoClusters.DEFAULT_CONCURRENCY));
        for (int i = 0; i + 1 < args.length; i += 2) {
            String name = args[i].replaceFirst("^--", "");
            if (!o.containsKey(name)) {
                System.err.println("options: --clusters N --passes P --jobs J --operation-millis M --concurrency C");
                System.exit(2);
            }
            o.put(name, Integer.parseInt(args[i + 1]));
        }
        run(o.get("clusters"), o.get("passes"), o.get("jobs"), Duration.ofMillis(o.get("operation-millis")), o.get("concurrency"),
                System.out);
        System.exit(0);
    }

    static void run(int n, int passes, int jobs, Duration operation, int concurrency, PrintStream out) throws Exception {
        Path dir = Files.createTempDirectory("in-cluster-run");
        Clock clock = Clock.systemUTC();
        // the market's clock as the server's: milliseconds
        Clock marketClock = Clock.tick(clock, Duration.ofMillis(1));
        long started = System.nanoTime();
        try (Database db = Database.open("jdbc:h2:file:" + dir.resolve("bc"));
             GkeProviderSetup setup = GkeProviderSetup.from("simulator", null, operation, clock)) {
            CatalogFile.Parsed parsed = CatalogFile.parseAll(catalog(n));
            new LoadCatalog(db.transactions(), db.catalog(), db.access()).load(parsed.catalog());
            MarketRepository markets = db.newMarketRepository(marketClock);
            new LoadMarketCatalog(db.transactions(), markets, db.marketLedger(), db.clusters(), marketClock).load(parsed.market());
            ClusterProviders providers = setup::provider;

            // ---- N clusters, ready and enrolled by the reconciler ----
            Caller caller = new Authenticate(db.access()).byToken("reconcile-run-token");
            CreateCluster create = new CreateCluster(db.clusters(), db.catalog(), new Authorizer(db.access()), clock);
            for (int i = 0; i < n; i++) {
                create.create(caller, ReconcileRun.command("c" + i));
            }
            ReconcileCluster reconcile = new ReconcileCluster(db.transactions(), db.clusters(), db.catalog(), db.access(),
                    db.outbox(), db.usage(), providers, Cadence.of(Duration.ofSeconds(1), Duration.ofSeconds(3600)), clock,
                    new EnrolReadyCluster(db.transactions(), markets, db.clusters(), parsed.market(), marketClock));
            try (ReconcileWorker worker = new ReconcileWorker(db.clusters(), reconcile, clock, "run", Duration.ofSeconds(60),
                    Duration.ofMillis(100), 4)) {
                await("every cluster ready", started, () -> clusters(db, n).stream().allMatch(c -> c.state() == ClusterState.READY));
            }
            await("every cluster enrolled", started, () -> markets.load().clusters().size() == n);
            double toReady = seconds(started);
            List<Cluster> clusters = clusters(db, n);
            ClusterConnections connections = new ClusterConnections(db.clusters(), db.catalog(), providers);
            List<ClusterConnection> reach = clusters.stream().map(c -> connections.of(c.id()).orElseThrow()).toList();
            int apiPort = URI.create(reach.get(0).endpointUrl()).getPort();

            // ---- the admission webhooks the clusters call, as the server serves them ----
            AdmissionKeys keys = AdmissionKeys.open(null, List.of("localhost", "127.0.0.1"), clock);
            PathTokens tokens = new PathTokens(keys.pathTokenKey(), keys.caPem());
            AdmissionServer admission = new AdmissionServer(new AdmitWorkload(new ReadMarketFacts(markets, db.clusters()),
                    AdmissionConfig.defaults().platformUsers()), new MutateWorkload(), tokens, keys.sslContext());
            int admissionPort = admission.start("127.0.0.1", 0);
            PathTokens endpoints = tokens.at("https://127.0.0.1:" + admissionPort);
            try (Fabric8MarketClusterClient fabric8 = MarketModule.newClusterClient()) {
                Watched client = new Watched(fabric8);
                CarryMarketIntoClusters.Steps steps = MarketModule.inClusterSteps(db, markets, marketClock, connections, client,
                        db.catalog(), providers, parsed.market(), endpoints);
                long heapBefore = usedHeapAfterGc();
                int connectionsBefore = connectionsTo(apiPort);

                // ---- one replica ----
                Hook hookA = new Hook();
                CarryMarketIntoClusters a = new CarryMarketIntoClusters(markets, db.inClusterLeases(), connections, client, steps,
                        marketClock, "replica-a", MarketModule.IN_CLUSTER_LEASE, MarketModule.OBJECTS_EVERY, concurrency, hookA);
                long syncStart = System.nanoTime();
                int setupPasses = 0;
                while (client.synced() < n) {
                    if (System.nanoTime() - started > PATIENCE.toNanos()) {
                        throw new IllegalStateException("only " + client.synced() + " of " + n + " watches synced in " + PATIENCE);
                    }
                    a.pass();
                    setupPasses++;
                }
                double toSynced = seconds(syncStart);
                Figures one = measure(List.of(a), passes, n, db, markets, reach, apiPort, connectionsBefore, client);
                long heapWith = usedHeapAfterGc();
                List<Double> verdicts;
                try (InClusterMarketLoop loop = new InClusterMarketLoop(wake -> hookA.to(wake, a), IN_CLUSTER_EVERY)) {
                    verdicts = verdicts(reach, jobs, "one");
                }
                // the loop's close closed every watch and gave the clusters back
                long heapWithout = usedHeapAfterGc();

                // ---- two replicas on the one database ----
                Hook hookB = new Hook();
                Hook hookC = new Hook();
                CarryMarketIntoClusters b = new CarryMarketIntoClusters(markets, db.inClusterLeases(), connections, client, steps,
                        marketClock, "replica-b", MarketModule.IN_CLUSTER_LEASE, MarketModule.OBJECTS_EVERY, concurrency, hookB);
                CarryMarketIntoClusters c = new CarryMarketIntoClusters(markets, db.inClusterLeases(), connections, client, steps,
                        marketClock, "replica-c", MarketModule.IN_CLUSTER_LEASE, MarketModule.OBJECTS_EVERY, concurrency, hookC);
                long heapBeforeTwo = usedHeapAfterGc();
                while (client.synced() < n || b.watching().size() + c.watching().size() != n
                        || b.watching().isEmpty() || c.watching().isEmpty()) {
                    if (System.nanoTime() - started > PATIENCE.toNanos()) {
                        throw new IllegalStateException("two replicas: only " + client.synced() + " of " + n + " watches synced");
                    }
                    b.pass();
                    c.pass();
                }
                Figures two = measure(List.of(b, c), passes, n, db, markets, reach, apiPort, connectionsBefore, client);
                long heapTwo = usedHeapAfterGc();
                List<Double> verdictsTwo;
                try (InClusterMarketLoop loopB = new InClusterMarketLoop(wake -> hookB.to(wake, b), IN_CLUSTER_EVERY);
                     InClusterMarketLoop loopC = new InClusterMarketLoop(wake -> hookC.to(wake, c), IN_CLUSTER_EVERY)) {
                    verdictsTwo = verdicts(reach, jobs, "two");
                }
                admission.stop();

                double mib = 1024.0 * 1024.0;
                double platformKib = (heapWith - heapWithout) / 1024.0 / n;
                double simulatedKib = (heapWithout - heapBefore) / 1024.0 / n;
                out.printf(Locale.ROOT, "in-cluster run: %d market-managed clusters, %d at once, the GKE simulator's operations of %d ms,"
                        + " H2 file%n", n, concurrency, operation.toMillis());
                out.printf(Locale.ROOT, "  set-up: ready and enrolled in %.0f s; add-ons ready and every watch synced %.0f s later (%d passes)%n",
                        toReady, toSynced, setupPasses);
                out.printf(Locale.ROOT, "  one replica:%n");
                one.print(out, n);
                out.printf(Locale.ROOT, "    heap held by the platform: %.0f KiB per cluster (%.0f MiB with the watches, %.0f MiB without)%n",
                        platformKib, heapWith / mib, heapWithout / mib);
                out.printf(Locale.ROOT, "      floor, the simulated API's heap for the same cluster's objects: %.0f KiB; ratio %.2f%n",
                        simulatedKib, platformKib / simulatedKib);
                printVerdicts(out, verdicts, one.passMedianSeconds());
                out.printf(Locale.ROOT, "  two replicas on one database:%n");
                two.print(out, n);
                out.printf(Locale.ROOT, "    heap held by both: %.0f KiB per cluster%n", (heapTwo - heapBeforeTwo) / 1024.0 / n);
                printVerdicts(out, verdictsTwo, two.passMedianSeconds());
                b.close();
                c.close();
            }
        } finally {
            deleteTree(dir);
        }
    }

    /** How often the server's in-cluster loop passes when nothing wakes it. */
    private static final Duration IN_CLUSTER_EVERY = MarketModule.IN_CLUSTER_EVERY;

    /** What was measured over one set of replicas, with the floors of the same moment. */
    private record Figures(int replicas, List<Double> passSeconds, double floorGetSeconds, double floorLoadSeconds,
                           int connections, int informers, Map<String, Long> calls, List<Integer> shares) {
        double passMedianSeconds() {
            return median(passSeconds);
        }

        void print(PrintStream out, int n) {
            double pass = passMedianSeconds();
            int share = n / replicas;
            out.printf(Locale.ROOT, "    pass (median of %d%s, clusters per replica %s): %.3f s, %.2f ms per cluster of its share; all %s%n",
                    passSeconds.size(), replicas > 1 ? ", each replica's, the replicas running at once" : "", shares, pass,
                    pass * 1000 / share, rounded(passSeconds));
            Map<String, String> perClusterPass = new java.util.TreeMap<>();
            calls.forEach((method, count) -> perClusterPass.put(method,
                    String.format(Locale.ROOT, "%.2f", count / (double) passSeconds.size() / share)));
            out.printf(Locale.ROOT, "      cluster API calls per cluster and pass: %s%n", perClusterPass);
            out.printf(Locale.ROOT, "      floor, one bare GET /api/v1/nodes per cluster (kept alive), all %d: %.3f s; ratio %.2f%n",
                    n, floorGetSeconds, pass / floorGetSeconds);
            out.printf(Locale.ROOT, "      floor, one markets.load(): %.4f s; ratio %.1f%n", floorLoadSeconds, pass / floorLoadSeconds);
            out.printf(Locale.ROOT, "    connections to the simulated API: %.2f per cluster (%d); floor, one per informer: %d; ratio %.2f%n",
                    connections / (double) n, connections, informers, connections / (double) n / informers);
        }
    }

    private static Figures measure(List<CarryMarketIntoClusters> replicas, int passes, int n, Database db, MarketRepository markets,
                                   List<ClusterConnection> reach, int apiPort, int connectionsBefore, Watched client) throws Exception {
        double floorBefore = bareGets(reach);
        client.resetCalls();
        List<Double> times = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (CarryMarketIntoClusters replica : replicas) {
            Thread t = new Thread(() -> {
                for (int i = 0; i < passes; i++) {
                    long t0 = System.nanoTime();
                    replica.pass();
                    times.add(seconds(t0));
                }
            }, "pass-" + threads.size());
            threads.add(t);
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        Map<String, Long> calls = client.calls();
        double floorAfter = bareGets(reach);
        List<Double> loads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            markets.load();
            loads.add(seconds(t0));
        }
        return new Figures(replicas.size(), List.copyOf(times), Math.min(floorBefore, floorAfter), median(loads),
                settledConnectionsTo(apiPort) - connectionsBefore, Watched.INFORMERS, calls,
                replicas.stream().map(r -> r.watching().size()).toList());
    }

    /** One GET of the nodes of every cluster in turn, on one kept-alive client trusting the clusters' CA: seconds. */
    private static double bareGets(List<ClusterConnection> reach) throws Exception {
        HttpClient http = HttpClient.newBuilder().sslContext(trusting(reach.get(0).caCertificateBase64()))
                .version(HttpClient.Version.HTTP_1_1).build();
        List<HttpRequest> requests = reach.stream().map(r -> HttpRequest.newBuilder(URI.create(r.endpointUrl() + "/api/v1/nodes"))
                .header("Authorization", "Bearer " + r.platformBearerToken()).build()).toList();
        http.send(requests.get(0), HttpResponse.BodyHandlers.discarding());
        long t0 = System.nanoTime();
        for (HttpRequest request : requests) {
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + request.uri() + ": " + response.statusCode());
            }
        }
        return seconds(t0);
    }

    private static SSLContext trusting(String caBase64) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Base64.getDecoder().decode(caBase64))));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        return tls;
    }

    /**
     * Submits a one-pod, 8-GPU Job to {@code jobs} clusters spread over all, one at a time, and measures from its
     * ProvisioningRequest appearing (Kueue's) to the first condition the market wrote on it, polling every 20 ms.
     */
    private static List<Double> verdicts(List<ClusterConnection> reach, int jobs, String tag) {
        List<Double> out = new ArrayList<>();
        for (int j = 0; j < jobs; j++) {
            ClusterConnection at = reach.get((int) ((long) j * reach.size() / jobs + reach.size() / (2L * jobs)) % reach.size());
            Config config = new ConfigBuilder(Config.empty()).withMasterUrl(at.endpointUrl())
                    .withCaCertData(at.caCertificateBase64()).withOauthToken(at.platformBearerToken()).build();
            try (KubernetesClient k = new KubernetesClientBuilder().withConfig(config).build()) {
                String name = "probe-" + tag + "-" + j;
                k.batch().v1().jobs().inNamespace("default").resource(new JobBuilder()
                        .withNewMetadata().withName(name).withNamespace("default").endMetadata()
                        .withNewSpec().withParallelism(1).withCompletions(1).withNewTemplate().withNewSpec()
                        .withRestartPolicy("Never").withNodeSelector(Map.of("nationalcompute.com/node-class", "h100-8x"))
                        .addNewContainer().withName("train").withImage("trainer").withNewResources()
                        .withLimits(Map.of("nvidia.com/gpu", new Quantity("8"))).endResources().endContainer()
                        .endSpec().endTemplate().endSpec().build()).create();
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
                Supplier<List<GenericKubernetesResource>> requests = () -> k.genericKubernetesResources(PROVISIONING_REQUESTS)
                        .inNamespace("default").list().getItems().stream()
                        .filter(r -> r.getMetadata().getName().contains(name)).toList();
                long appeared = poll(deadline, () -> !requests.get().isEmpty());
                long verdict = poll(deadline, () -> requests.get().stream().anyMatch(InClusterRun::hasCondition));
                out.add((verdict - appeared) / 1e9);
            }
        }
        return out;
    }

    private static boolean hasCondition(GenericKubernetesResource request) {
        return request.getAdditionalProperties().get("status") instanceof Map<?, ?> status
                && status.get("conditions") instanceof List<?> conditions && !conditions.isEmpty();
    }

    /** Polls every 20 ms until {@code done}: the nanoTime it first held. */
    private static long poll(long deadline, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no ProvisioningRequest or no verdict within 5 minutes");
            }
            pause(20);
        }
        return System.nanoTime();
    }

    private static void printVerdicts(PrintStream out, List<Double> verdicts, double pass) {
        double median = median(verdicts);
        out.printf(Locale.ROOT, "    ProvisioningRequest -> first verdict, %d jobs: median %.2f s, max %.2f s, all %s; "
                        + "ratio to one pass %.2f; to the 5-s tick %.2f%n", verdicts.size(), median,
                verdicts.stream().mapToDouble(Double::doubleValue).max().orElse(0), rounded(verdicts), median / pass, median / 5.0);
    }

    /** The watches' change hook, bound to the loop once it runs (a watch that sees a change before: nothing). */
    private static final class Hook implements Runnable {
        private final AtomicReference<Runnable> wake = new AtomicReference<>(() -> { });

        CarryMarketIntoClusters to(Runnable wake, CarryMarketIntoClusters carry) {
            this.wake.set(wake);
            return carry;
        }

        @Override
        public void run() {
            wake.get().run();
        }
    }

    /**
     * The server's client, every call passed on to it unchanged; it keeps the demand watches it opened (to know when
     * all have synced) and counts the calls by method.
     */
    private static final class Watched implements MarketClusterClient {
        /** The informers of one demand watch: ProvisioningRequests, PodTemplates, Jobs, Workloads. */
        static final int INFORMERS = 4;
        private final MarketClusterClient client;
        private final Set<DemandWatch> open = ConcurrentHashMap.newKeySet();
        private final Map<String, java.util.concurrent.atomic.LongAdder> calls = new ConcurrentHashMap<>();

        Watched(MarketClusterClient client) {
            this.client = client;
        }

        void resetCalls() {
            calls.clear();
        }

        int synced() {
            return (int) open.stream().filter(DemandWatch::synced).count();
        }

        Map<String, Long> calls() {
            Map<String, Long> out = new java.util.TreeMap<>();
            calls.forEach((k, v) -> out.put(k, v.sum()));
            return out;
        }

        private void count(String method) {
            calls.computeIfAbsent(method, k -> new java.util.concurrent.atomic.LongAdder()).increment();
        }

        @Override
        public void ensurePlatformObjects(ClusterConnection cluster, PlatformObjects objects) {
            count("ensurePlatformObjects");
            client.ensurePlatformObjects(cluster, objects);
        }

        @Override
        public List<ComponentStatus> ensureComponents(ClusterConnection cluster) {
            count("ensureComponents");
            return client.ensureComponents(cluster);
        }

        @Override
        public DemandWatch watchDemand(ClusterConnection cluster, Runnable onChange) {
            count("watchDemand");
            DemandWatch watch = client.watchDemand(cluster, onChange);
            open.add(watch);
            return new DemandWatch() {
                @Override
                public boolean synced() {
                    return watch.synced();
                }

                @Override
                public List<ObservedJob> jobs() {
                    return watch.jobs();
                }

                @Override
                public void close() {
                    open.remove(watch);
                    watch.close();
                }
            };
        }

        @Override
        public void writeRequestStatus(ClusterConnection cluster, String namespace, String name, RequestStatus status) {
            count("writeRequestStatus");
            client.writeRequestStatus(cluster, namespace, name, status);
        }

        @Override
        public void postEvent(ClusterConnection cluster, ObjectRef on, PostedEvent event) {
            count("postEvent");
            client.postEvent(cluster, on, event);
        }

        @Override
        public List<ClusterNode> nodes(ClusterConnection cluster) {
            count("nodes");
            return client.nodes(cluster);
        }

        @Override
        public void markNode(ClusterConnection cluster, String node, NodeMarking marking) {
            count("markNode");
            client.markNode(cluster, node, marking);
        }

        @Override
        public int labelPoolNodes(ClusterConnection cluster, String nodePool, Map<String, String> labels) {
            count("labelPoolNodes");
            return client.labelPoolNodes(cluster, nodePool, labels);
        }

        @Override
        public List<PodOnNode> podsOn(ClusterConnection cluster, String node) {
            count("podsOn");
            return client.podsOn(cluster, node);
        }

        @Override
        public void annotatePod(ClusterConnection cluster, ObjectRef pod, Map<String, String> annotations) {
            count("annotatePod");
            client.annotatePod(cluster, pod, annotations);
        }

        @Override
        public void evictPod(ClusterConnection cluster, ObjectRef pod, long graceSeconds) {
            count("evictPod");
            client.evictPod(cluster, pod, graceSeconds);
        }
    }

    /** Established TCP connections of this process (both ends are here) whose remote end is the simulated API's port. */
    private static int connectionsTo(int port) throws IOException {
        int count = 0;
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines = Files.readAllLines(file);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                String remote = f[2];
                if ("01".equals(f[3]) && Integer.parseInt(remote.substring(remote.indexOf(':') + 1), 16) == port) {
                    count++;
                }
            }
        }
        return count;
    }

    /** {@link #connectionsTo} once it has held for 3 s (closed watches' connections take a moment to go), at most 30 s. */
    private static int settledConnectionsTo(int port) throws IOException {
        int last = connectionsTo(port);
        int held = 0;
        for (int i = 0; i < 30 && held < 3; i++) {
            pause(1000);
            int now = connectionsTo(port);
            held = now == last ? held + 1 : 0;
            last = now;
        }
        return last;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            pause(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static List<Cluster> clusters(Database db, int n) {
        return db.clusters().list(new ClusterFilter("run", null, null, false), n + 1);
    }

    private static void await(String what, long started, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - started > PATIENCE.toNanos()) {
                throw new IllegalStateException("not " + what + " within " + PATIENCE);
            }
            pause(250);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
    }

    private static String rounded(List<Double> values) {
        return values.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).toList().toString();
    }

    /** ReconcileRun's catalog, its tenant market-managed in the market's one site (us-central1) with a pool there. */
    static String catalog(int n) {
        return ReconcileRun.catalog(n).replace("tenants: [{id: run, maxClusters: " + Math.max(10, n) + "}]",
                "tenants: [{id: run, maxClusters: " + Math.max(10, n) + ", credits: '1000', market: {maxClusterGpus: 32, packing: false}}]")
                + String.join("\n",
                "market:",
                "  pools:",
                "    - {id: us-central1/h100-8x, account: acct, zone: us-central1-a, machineType: a3-highgpu-8g, "
                        + "accelerator: {type: nvidia-h100-80gb, count: 8}, nodes: 8, reserve: '1.20'}", "");
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
