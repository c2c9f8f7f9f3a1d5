package com.bettercompute.domain.market;

import java.time.Instant;
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
 * The same market as {@link MarketTickBenchmark}, with the clock moving five seconds per tick: every
 * grant bills, notices run out, gangs are revoked and requeued, and the market evolves. The set-up
 * runs ten virtual minutes first, past the wave of notices the first tick sends. It takes the same
 * parameters, so one {@code -p} gives the scale point of both benchmarks and their floor.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MarketTickAdvancingBenchmark {
    @Param("100000")
    int waiting;
    @Param("20000")
    int running;
    @Param("64")
    int pools;

    Market market;
    Instant now;

    @Setup(Level.Trial)
    public void setUp() {
        market = MarketTickBenchmark.build(waiting, running, pools, 42);
        now = market.lastTick();
        for (int i = 0; i < 120; i++) {
            now = now.plusSeconds(5);
            Ticks.tickReady(market, now);
        }
    }

    @Benchmark
    public TickOutcome tickEveryFiveSeconds() {
        now = now.plusSeconds(5);
        return Ticks.tickReady(market, now);
    }
}
