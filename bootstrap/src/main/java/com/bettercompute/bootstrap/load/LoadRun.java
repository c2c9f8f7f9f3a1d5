package com.bettercompute.bootstrap.load;

import com.bettercompute.bootstrap.Server;
import com.bettercompute.bootstrap.ServerConfig;
import io.javalin.Javalin;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A closed-loop load run, in one process: a bare Javalin endpoint (the floor) and the real server (on a
 * fresh H2 file and a catalog written for the run) driven with the same load — C workers on
 * {@code java.net.http}, each sending its next request when the last one is answered, a warm-up, then a
 * measured window — for the floor, {@code create} (a new name and key each time) and {@code get} of the
 * clusters created. Prints requests/s and p50/p99 latency of each, and create/floor and get/floor ratios.
 *
 * <pre>java -cp bootstrap/target/better-compute.jar com.bettercompute.bootstrap.load.LoadRun [--seconds N] [--concurrency C] [--warmup W]</pre>
 *
 * Loopback only. Each phase is bounded in time and in requests (creates by the tenant's cluster quota).
 */
public final class LoadRun {
    static final String TOKEN = "load-run-token";
    static final String TENANT = "load";
    static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    /** The catalog reader's bound on a tenant's maxClusters; creates of warm-up and window stay under it. */
    static final int MAX_CLUSTERS = 100_000;
    static final long MAX_REQUESTS_PER_PHASE = 5_000_000;
    private static final Pattern ID = Pattern.compile("\"id\":\"(kcl_[0-9a-z]+)\"");

    private LoadRun() {}

    /** Settings: measured seconds per phase, workers, warm-up seconds. */
    record Settings(int seconds, int concurrency, int warmup) {
        static Settings parse(String[] args) {
            int seconds = 10;
            int concurrency = 8;
            int warmup = 3;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help") || a.equals("-h")) {
                    throw new IllegalArgumentException("usage");
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                int v;
                try {
                    v = Integer.parseInt(args[++i]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(a + " takes a whole number, not " + args[i]);
                }
                switch (a) {
                    case "--seconds" -> seconds = v;
                    case "--concurrency" -> concurrency = v;
                    case "--warmup" -> warmup = v;
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (seconds < 1 || seconds > 600 || concurrency < 1 || concurrency > 512 || warmup < 0 || warmup > 600) {
                throw new IllegalArgumentException("--seconds 1..600, --concurrency 1..512, --warmup 0..600");
            }
            return new Settings(seconds, concurrency, warmup);
        }
    }

    /** One phase's outcome: measured requests, the window's length, latencies (ns, sorted), failures. */
    record Result(String name, long requests, long windowNanos, long[] latencies, long failures, String firstFailure) {
        double perSecond() {
            return requests * 1e9 / windowNanos;
        }

        double percentileMillis(double p) {
            if (latencies.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(p * latencies.length) - 1;
            return latencies[Math.max(0, Math.min(latencies.length - 1, i))] / 1e6;
        }
    }

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("LoadRun: " + e.getMessage());
            System.err.println("usage: java -cp better-compute.jar " + LoadRun.class.getName()
                    + " [--seconds N (10)] [--concurrency C (8)] [--warmup W (3)]");
            System.exit(2);
            return;
        }
        System.exit(run(settings, System.out));
    }

    static int run(Settings s, PrintStream out) throws Exception {
        Path dir = Files.createTempDirectory("better-compute-load");
        Path catalog = dir.resolve("catalog.yaml");
        Files.writeString(catalog, catalog(), StandardCharsets.UTF_8);
        String db = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();

        Javalin floor = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.routes.post("/floor", ctx -> {
                ctx.bodyAsBytes();
                ctx.contentType("application/json").result("{\"ok\":true}");
            });
        });
        floor.start("127.0.0.1", 0);
        Server server = Server.start(ServerConfig.defaults().withPort(0).withDb(db).withCatalog(catalog).withoutReconciler(), Clock.systemUTC());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        try {
            String floorUrl = "http://127.0.0.1:" + floor.port() + "/floor";
            String api = "http://127.0.0.1:" + server.port() + "/api/compute/kubernetesClusters/";
            out.printf(Locale.ROOT, "load run: %d s measured after %d s warm-up per phase, %d workers, %d processors, Java %s%n",
                    s.seconds(), s.warmup(), s.concurrency(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
            out.println("floor " + floorUrl + "; server " + api + " on " + db);
            out.printf(Locale.ROOT, "system load average at start: %.2f%n", loadAverage());

            Result floorResult = phase("floor", s, http, Long.MAX_VALUE, n -> post(floorUrl, "{\"tenantId\":\"load\"}"), null);
            ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
            AtomicLong names = new AtomicLong();
            Result createResult = phase("create", s, http, MAX_CLUSTERS - 100, n -> {
                long i = names.incrementAndGet();
                return post(api + "create", createBody("c-" + i, "k-" + i));
            }, body -> {
                Matcher m = ID.matcher(body);
                if (m.find()) {
                    ids.add(m.group(1));
                }
            });
            String[] existing = ids.toArray(new String[0]);
            if (existing.length == 0) {
                out.println("no cluster was created; get cannot be measured");
                print(out, List.of(floorResult, createResult), floorResult);
                return 1;
            }
            Result getResult = phase("get", s, http, Long.MAX_VALUE, n -> post(api + "get",
                    "{\"tenantId\":\"" + TENANT + "\",\"clusterId\":\"" + existing[ThreadLocalRandom.current().nextInt(existing.length)] + "\"}"), null);
            out.println("clusters in the tenant during get: " + existing.length);
            out.printf(Locale.ROOT, "system load average at end: %.2f (other processes on the machine skew every number; compare the ratios)%n", loadAverage());
            List<Result> results = List.of(floorResult, createResult, getResult);
            print(out, results, floorResult);
            return results.stream().anyMatch(r -> r.failures() > 0) ? 1 : 0;
        } finally {
            server.close();
            floor.stop();
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static HttpRequest post(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    /** A small standard cluster, unique by name and idempotency key. */
    static String createBody(String name, String key) {
        return "{\"tenantId\":\"" + TENANT + "\",\"poolId\":\"" + POOL + "\",\"name\":\"" + name + "\",\"mode\":\"standard\","
                + "\"location\":\"us-central1-a\",\"nodePools\":[{\"name\":\"gpu\",\"machineType\":\"a3-highgpu-8g\",\"nodeCount\":2,"
                + "\"accelerators\":{\"type\":\"nvidia-h100-80gb\",\"count\":8},\"labels\":{\"team\":\"ml\"}}],"
                + "\"idempotencyKey\":\"" + key + "\"}";
    }

    /**
     * Runs C workers in a closed loop: warm-up, then the measured window, then stop. A request is counted
     * in the window when it started in it. At most {@code maxRequests} are sent in all.
     */
    static Result phase(String name, Settings s, HttpClient http, long maxRequests, LongFunction<HttpRequest> next,
                        java.util.function.Consumer<String> onBody) throws InterruptedException {
        long start = System.nanoTime();
        long windowStart = start + s.warmup() * 1_000_000_000L;
        long windowEnd = windowStart + s.seconds() * 1_000_000_000L;
        AtomicLong sent = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong lastInWindow = new AtomicLong(windowStart);
        String[] firstFailure = new String[1];
        long cap = Math.min(maxRequests, MAX_REQUESTS_PER_PHASE);
        List<long[]> perWorker = new ArrayList<>();
        int[] counts = new int[s.concurrency()];
        CountDownLatch done = new CountDownLatch(s.concurrency());
        for (int w = 0; w < s.concurrency(); w++) {
            long[][] mine = {new long[1024]};
            perWorker.add(null);
            int worker = w;
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        long n = sent.incrementAndGet();
                        long begin = System.nanoTime();
                        if (n > cap || begin >= windowEnd) {
                            break;
                        }
                        String problem = null;
                        try {
                            HttpResponse<String> r = http.send(next.apply(n), HttpResponse.BodyHandlers.ofString());
                            if (r.statusCode() != 200) {
                                problem = r.statusCode() + " " + r.body();
                            } else if (onBody != null) {
                                onBody.accept(r.body());
                            }
                        } catch (IOException e) {
                            problem = e.toString();
                        }
                        long end = System.nanoTime();
                        if (problem != null) {
                            failures.incrementAndGet();
                            synchronized (firstFailure) {
                                if (firstFailure[0] == null) {
                                    firstFailure[0] = problem.length() > 300 ? problem.substring(0, 300) : problem;
                                }
                            }
                        } else if (begin >= windowStart) {
                            if (counts[worker] == mine[0].length) {
                                mine[0] = Arrays.copyOf(mine[0], mine[0].length * 2);
                            }
                            mine[0][counts[worker]++] = end - begin;
                            lastInWindow.accumulateAndGet(end, Math::max);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    synchronized (perWorker) {
                        perWorker.set(worker, Arrays.copyOf(mine[0], counts[worker]));
                    }
                    done.countDown();
                }
            }, "load-" + name + "-" + w);
            t.setDaemon(true);
            t.start();
        }
        done.await();
        long total = 0;
        for (long[] l : perWorker) {
            total += l.length;
        }
        long[] all = new long[(int) total];
        int at = 0;
        for (long[] l : perWorker) {
            System.arraycopy(l, 0, all, at, l.length);
            at += l.length;
        }
        Arrays.sort(all);
        // the window closes at its end, or earlier when the request bound stopped the phase
        long window = Math.max(1, Math.min(windowEnd, lastInWindow.get()) - windowStart);
        return new Result(name, total, window, all, failures.get(), firstFailure[0]);
    }

    static void print(PrintStream out, List<Result> results, Result floor) {
        out.println();
        out.printf(Locale.ROOT, "| %-6s | %10s | %10s | %9s | %9s | %8s |%n", "phase", "requests", "req/s", "p50 ms", "p99 ms", "failures");
        out.println("|--------|-----------:|-----------:|----------:|----------:|---------:|");
        for (Result r : results) {
            out.printf(Locale.ROOT, "| %-6s | %10d | %10.0f | %9.2f | %9.2f | %8d |%n", r.name(), r.requests(), r.perSecond(),
                    r.percentileMillis(0.50), r.percentileMillis(0.99), r.failures());
        }
        out.println();
        for (Result r : results) {
            if (r != floor) {
                out.printf(Locale.ROOT, "%s/floor: throughput %.3f, p99 %.1fx%n", r.name(), r.perSecond() / floor.perSecond(),
                        r.percentileMillis(0.99) / floor.percentileMillis(0.99));
            }
        }
        for (Result r : results) {
            if (r.firstFailure() != null) {
                out.println(r.name() + ": first failure: " + r.firstFailure());
            }
        }
    }

    /** One provider, account and pool, a tenant allowed {@value #MAX_CLUSTERS} clusters, and its admin. */
    static String catalog() {
        return """
                providers:
                  - id: gcp
                    managedKubernetes: true
                accounts:
                  - id: acct_load
                    provider: gcp
                    owner: platform
                    cloudProject: load-run
                    zones: [us-central1-a, us-central1-b]
                pools:
                  - id: %s
                    account: acct_load
                    kind: provider
                    billingMode: metered
                    offers:
                      - {tenant: %s, state: active}
                tenants:
                  - id: %s
                    maxClusters: %d
                principals:
                  - id: service:load-run
                    token: %s
                    bindings:
                      - {tenant: %s, role: kubernetes-admin}
                """.formatted(POOL, TENANT, TENANT, MAX_CLUSTERS, TOKEN, TENANT);
    }
}
