package com.bettercompute.bootstrap.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Does the server keep every write it acknowledged when it is killed with SIGKILL? The real server in a
 * process of its own ({@link ServerProcess}); several client threads create, update and delete clusters
 * through the API as fast as it answers, and record each write the server answered 200; the server is
 * killed at a random moment (on the embedded default, every other time its PostgreSQL with it, as a
 * killed container would), started again on the same data, and every write acknowledged in that cycle
 * is checked: a created cluster exists, an updated one has at least the acknowledged {@code version}, a
 * deleted one is {@code deleting} or {@code deleted}.
 *
 * <p>Run by {@link AcknowledgedWritesSurviveSigkillTest} in CI; for a long measurement see that class.
 */
final class SigkillLoop {
    static final String TENANT = "acme";
    static final ObjectMapper JSON = new ObjectMapper();

    /** How a run goes: {@code db} null is the embedded default (no {@code --db}). */
    record Settings(int cycles, int threads, String db, int minLoadMillis, int maxLoadMillis, long seed) {}

    /** A write the server acknowledged and the server did not keep. */
    record Loss(int cycle, String clusterId, String kind, String acknowledged, String found, long msBeforeKill) {}

    /** What a run saw; {@code statuses} counts the answers other than 200, by status. */
    record Result(int cycles, long creates, long updates, long deletes, List<Loss> losses,
                  Map<Integer, Integer> statuses, long seconds) {
        String summary() {
            long lossCycles = losses.stream().map(Loss::cycle).distinct().count();
            return "cycles=" + cycles + " acknowledged creates=" + creates + " updates=" + updates + " deletes=" + deletes
                    + " cycles with a lost write=" + lossCycles + " lost writes=" + losses.size()
                    + " other answers=" + statuses + " seconds=" + seconds;
        }
    }

    /** One cluster's acknowledged history; written by the one thread that owns the cluster. */
    static final class Acked {
        final String id;
        volatile long version;
        volatile boolean deleted;
        volatile long ackedAtNanos;
        volatile int cycle;
        volatile String lastKind;

        Acked(String id) {
            this.id = id;
        }
    }

    private final Settings settings;
    private final Path workDir;
    private final Path log;
    private final Path catalog;
    private final PrintStream out;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, Acked> ledger = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    private final AtomicInteger creates = new AtomicInteger();
    private final AtomicInteger updates = new AtomicInteger();
    private final AtomicInteger deletes = new AtomicInteger();
    /** The first call a live server left unanswered for {@link #CALL_TIMEOUT}, with its threads then. */
    private final AtomicReference<String> stall = new AtomicReference<>();
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private final String nonce;

    SigkillLoop(Settings settings, Path workDir, PrintStream out) throws IOException {
        this.settings = settings;
        this.workDir = workDir;
        this.out = out;
        this.log = workDir.resolve("server.log");
        this.catalog = workDir.resolve("sigkill-catalog.yaml");
        try (InputStream in = SigkillLoop.class.getResourceAsStream("/sigkill-catalog.yaml")) {
            Files.write(catalog, in.readAllBytes());
        }
        this.nonce = Long.toString(Math.abs(settings.seed() % 1296), 36);
    }

    Result run() throws Exception {
        Random random = new Random(settings.seed());
        List<Loss> losses = new ArrayList<>();
        long started = System.nanoTime();
        List<List<String>> owned = new ArrayList<>();
        for (int t = 0; t < settings.threads(); t++) {
            owned.add(new ArrayList<>());
        }
        ExecutorService clients = Executors.newFixedThreadPool(settings.threads());
        // the server restarted to check a cycle carries the next cycle's load
        ServerProcess server = null;
        try {
            server = ServerProcess.start(workDir, log, serverArgs());
            for (int cycle = 0; cycle < settings.cycles(); cycle++) {
                long cycleStarted = System.nanoTime();
                ServerProcess loaded = server;
                AtomicBoolean stop = new AtomicBoolean();
                CountDownLatch firstAck = new CountDownLatch(1);
                List<Future<?>> running = new ArrayList<>();
                for (int t = 0; t < settings.threads(); t++) {
                    int thread = t;
                    int thisCycle = cycle;
                    long seed = random.nextLong();
                    running.add(clients.submit(() -> load(loaded, thread, thisCycle, owned.get(thread), new Random(seed), stop, firstAck)));
                }
                // a freshly started server answers its first calls slowly: the random moment counts from
                // the first acknowledged write, so every cycle kills a server in the middle of its writes
                firstAck.await(2, TimeUnit.MINUTES);
                Thread.sleep(settings.minLoadMillis() + random.nextInt(settings.maxLoadMillis() - settings.minLoadMillis() + 1));
                boolean withPostgres = settings.db() == null && random.nextBoolean();
                server.kill();
                long killedAt = System.nanoTime();
                if (withPostgres) {
                    ServerProcess.killEmbeddedPostgres(workDir);
                }
                stop.set(true);
                for (Future<?> f : running) {
                    try {
                        // each call it makes gives up after 30 s, and the server is gone: they end at once
                        f.get(2, TimeUnit.MINUTES);
                    } catch (TimeoutException e) {
                        throw new AssertionError("cycle " + cycle + ": a client thread still runs 2 minutes after the server was killed");
                    }
                }
                if (stall.get() != null) {
                    throw new AssertionError("cycle " + cycle + ": " + stall.get());
                }
                server = ServerProcess.start(workDir, log, serverArgs());
                int checked = cycle;
                List<Loss> lost = check(server, checked, killedAt);
                losses.addAll(lost);
                out.println(JSON.writeValueAsString(Map.of("cycle", cycle, "killedPostgresToo", withPostgres,
                        "seconds", (System.nanoTime() - cycleStarted) / 1_000_000_000.0,
                        "acknowledgedThisCycle", ledger.values().stream().filter(a -> a.cycle == checked).count(),
                        "lost", lost.size(), "lostSample", lost.subList(0, Math.min(5, lost.size())).toString())));
                out.flush();
            }
        } finally {
            if (server != null) {
                server.kill();
            }
            clients.shutdownNow();
            ServerProcess.stopEmbeddedPostgres(workDir);
        }
        Map<Integer, Integer> others = new LinkedHashMap<>(statuses);
        return new Result(settings.cycles(), creates.get(), updates.get(), deletes.get(), losses, others, (System.nanoTime() - started) / 1_000_000_000L);
    }

    private List<String> serverArgs() {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--catalog", catalog.toString(),
                "--sim-operation-seconds", "1", "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "5"));
        if (settings.db() != null) {
            args.addAll(List.of("--db", settings.db()));
        }
        return args;
    }

    /** One client thread: writes on its own clusters until the server is gone. */
    private void load(ServerProcess server, int thread, int cycle, List<String> mine, Random random, AtomicBoolean stop,
                      CountDownLatch firstAck) {
        String base = server.baseUrl();
        int n = 0;
        while (!stop.get()) {
            try {
                double dice = random.nextDouble();
                if (mine.size() < 2 || (dice < 0.35 && mine.size() < 6)) {
                    String name = "w" + thread + "-" + nonce + "-" + cycle + "-" + n++;
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("tenantId", TENANT);
                    body.put("poolId", RunningServer.POOL);
                    body.put("name", name);
                    body.put("mode", "autopilot");
                    body.put("location", "us-central1");
                    body.put("idempotencyKey", "key-" + name);
                    JsonNode c = send(base, "create", body);
                    if (c != null) {
                        Acked a = new Acked(c.get("id").asText());
                        acked(a, cycle, "create", c.get("version").asLong(), false);
                        ledger.put(a.id, a);
                        mine.add(a.id);
                        creates.incrementAndGet();
                        firstAck.countDown();
                    }
                } else if (dice < 0.85) {
                    Acked a = ledger.get(mine.get(random.nextInt(mine.size())));
                    JsonNode c = send(base, "update", Map.of("tenantId", TENANT, "clusterId", a.id, "description", "c" + cycle + "-" + n++));
                    if (c != null) {
                        acked(a, cycle, "update", c.get("version").asLong(), false);
                        updates.incrementAndGet();
                        firstAck.countDown();
                    }
                } else {
                    Acked a = ledger.get(mine.remove(random.nextInt(mine.size())));
                    JsonNode c = send(base, "delete", Map.of("tenantId", TENANT, "clusterId", a.id));
                    if (c != null) {
                        acked(a, cycle, "delete", c.get("version").asLong(), true);
                        deletes.incrementAndGet();
                        firstAck.countDown();
                    }
                }
            } catch (HttpTimeoutException e) {
                if (!stop.get()) {
                    // the server is alive (not killed yet) and did not answer: a stall, not a crash
                    stall.compareAndSet(null, "a write was left unanswered for " + CALL_TIMEOUT.toSeconds()
                            + " s by the live server; its threads then:\n" + server.threads());
                }
                return;
            } catch (IOException e) {
                return; // the server is gone: nothing more is acknowledged in this cycle
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void acked(Acked a, int cycle, String kind, long version, boolean deleted) {
        a.version = Math.max(a.version, version);
        a.deleted = a.deleted || deleted;
        a.ackedAtNanos = System.nanoTime();
        a.cycle = cycle;
        a.lastKind = kind;
    }

    /** The body of a 200, else null (the write was not acknowledged). */
    private JsonNode send(String base, String method, Map<String, Object> body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/compute/kubernetesClusters/" + method))
                .timeout(CALL_TIMEOUT)
                .header("Authorization", "Bearer " + RunningServer.ALICE).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
            return JSON.readTree(r.body());
        }
        statuses.merge(r.statusCode(), 1, Integer::sum);
        return null;
    }

    /** Every write acknowledged in {@code cycle}, against what the restarted server shows. */
    private List<Loss> check(ServerProcess server, int cycle, long killedAt) throws Exception {
        String base = server.baseUrl();
        List<Loss> lost = new ArrayList<>();
        Set<Acked> touched = ConcurrentHashMap.newKeySet();
        ledger.values().stream().filter(a -> a.cycle == cycle).forEach(touched::add);
        for (Acked a : touched) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/compute/kubernetesClusters/get"))
                    .timeout(CALL_TIMEOUT)
                    .header("Authorization", "Bearer " + RunningServer.ALICE).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("tenantId", TENANT, "clusterId", a.id)))).build();
            HttpResponse<String> r;
            try {
                r = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (HttpTimeoutException e) {
                throw new AssertionError("cycle " + cycle + ": the restarted server left a get unanswered for "
                        + CALL_TIMEOUT.toSeconds() + " s; its threads then:\n" + server.threads());
            }
            long ms = (killedAt - a.ackedAtNanos) / 1_000_000L;
            if (r.statusCode() != 200) {
                lost.add(new Loss(cycle, a.id, a.lastKind, "exists", "HTTP " + r.statusCode(), ms));
                continue;
            }
            JsonNode c = JSON.readTree(r.body());
            String state = c.get("state").asText();
            long version = c.get("version").asLong();
            if (a.deleted && !(state.equals("deleting") || state.equals("deleted"))) {
                lost.add(new Loss(cycle, a.id, "delete", "deleting", state + " v" + version, ms));
            } else if (version < a.version) {
                lost.add(new Loss(cycle, a.id, a.lastKind, "v" + a.version, state + " v" + version, ms));
            }
        }
        return lost;
    }

    /**
     * The long measurement: {@code java -cp <bootstrap test class path> ...SigkillLoop CYCLES THREADS [DB]}
     * (see {@code bootstrap/sigkill-loop.sh}) prints a line per cycle and the summary; the exit status is
     * the number of lost writes (capped at 100).
     * {@link AcknowledgedWritesSurviveSigkillTest} runs the same with {@code -Dcrash.cycles=N} from Maven.
     */
    public static void main(String[] args) throws Exception {
        int cycles = Integer.parseInt(args[0]);
        int threads = Integer.parseInt(args[1]);
        String db = args.length > 2 ? args[2] : null;
        Path dir = Files.createTempDirectory("sigkill-loop");
        Result r = new SigkillLoop(new Settings(cycles, threads, db, 50, 2000, System.nanoTime()), dir, System.out).run();
        System.out.println(r.summary());
        System.out.println("losses: " + r.losses());
        System.exit(Math.min(100, r.losses().size()));
    }
}
