package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One market tick with 100,000 waiting and 20,000 running requests over 64 pools, against the floor
 * of {@code Arrays.sort} of as many {@code long}s, measured in the same run. The scale point is the
 * same at ten times the size: {@code -p waiting=1000000 -p running=200000 -p pools=640}. Run by hand,
 * see docs/performance.md (the market tick); it is not a test.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MarketTickBenchmark {
    static final int NODES_PER_POOL = 320;

    @Param("100000")
    int waiting;
    @Param("20000")
    int running;
    @Param("64")
    int pools;

    Market market;
    Instant now;
    long[] keys;
    long[] scratch;

    @Setup(Level.Trial)
    public void setUp() {
        market = build(waiting, running, pools, 42);
        now = market.lastTick();
        SplittableRandom random = new SplittableRandom(7);
        keys = new long[waiting + running];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextLong();
        }
        scratch = new long[keys.length];
    }

    /**
     * A market whose running requests hold every node, their windows over, and whose waiting
     * requests bid across the same range of limits; after the last tick some gangs are under notice.
     */
    static Market build(int waiting, int running, int poolCount, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Market m = new Market();
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        PoolId[] pools = new PoolId[poolCount];
        for (int p = 0; p < poolCount; p++) {
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
        for (int i = 0; i < running; i++) {
            m.file(new JobDemand("r" + i, "c" + random.nextInt(tenants), pools[i % poolCount], 8, Money.parse("9.00"),
                    PriorityClass.NONE), t0);
        }
        Ticks.tickReady(m, t0);
        for (int i = 0; i < running; i++) {
            m.setJobLimit("r" + i, limit(random));
        }
        Instant later = t0.plusSeconds(3 * 3600);
        for (int i = 0; i < waiting; i++) {
            m.file(new JobDemand("w" + i, "c" + random.nextInt(tenants), pools[random.nextInt(poolCount)],
                    8 * (1 + random.nextInt(4)), limit(random), PriorityClass.NONE), later);
        }
        Ticks.tickReady(m, later);
        Ticks.tickReady(m, later);
        return m;
    }

    private static Money limit(SplittableRandom random) {
        return Money.ofMicros(1_000_000L + random.nextInt(4_000) * 1_000L);
    }

    /** A tick at the same instant: the whole clearing, no time passed (nothing to bill, no deadline). */
    @Benchmark
    public TickOutcome tick() {
        return market.tick(now);
    }

    /** The floor: sorting as many longs as there are requests. */
    @Benchmark
    public long[] sortLongs() {
        System.arraycopy(keys, 0, scratch, 0, keys.length);
        Arrays.sort(scratch);
        return scratch;
    }
}
