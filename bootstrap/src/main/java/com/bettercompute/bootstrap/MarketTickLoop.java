package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.MarketTickLock;
import com.bettercompute.application.market.RunMarketTick;
import com.bettercompute.domain.market.TickOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs {@link RunMarketTick} every {@code every}, on one replica at a time: before each tick it makes sure
 * it holds the {@link MarketTickLock} (taking it when free), else it skips the tick. A replica that dies
 * frees the lock, so another replica's next try — within one interval — takes over. A tick that throws is
 * logged and counted; the next one runs on time. {@link #close()} lets a tick under way finish, then gives
 * the lock back.
 */
final class MarketTickLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MarketTickLoop.class);

    /** Told of every tick this replica ran. Called on the loop's thread; must be quick and must not throw. */
    interface Listener {
        void onTick(TickOutcome outcome, long nanos);

        /** A tick threw (it is rolled back whole; the next one decides again). */
        default void onFailure(RuntimeException e) {
        }
    }

    private final RunMarketTick tick;
    private final MarketTickLock lock;
    private final Duration drain;
    private final Listener listener;
    private final ScheduledExecutorService executor;
    private final AtomicLong ticks = new AtomicLong();
    private volatile boolean closing;

    MarketTickLoop(RunMarketTick tick, MarketTickLock lock, Duration every, Duration drain, Listener listener) {
        this.tick = tick;
        this.lock = lock;
        this.drain = drain;
        this.listener = listener;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "market-tick");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::tickSafely, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tickSafely() {
        if (closing || !lock.tryHold()) {
            return;
        }
        long start = System.nanoTime();
        try {
            TickOutcome outcome = tick.run();
            ticks.incrementAndGet();
            listener.onTick(outcome, System.nanoTime() - start);
        } catch (RuntimeException e) {
            LOG.error("market tick failed (rolled back; the next tick decides again)", e);
            listener.onFailure(e);
        }
    }

    /** Ticks this replica ran. */
    long ticks() {
        return ticks.get();
    }

    @Override
    public void close() {
        closing = true;
        executor.shutdown();
        try {
            if (!executor.awaitTermination(drain.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("a market tick still runs after {}; the tick lock is given back anyway", drain);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lock.close();
    }
}
