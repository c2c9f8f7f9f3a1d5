package com.bettercompute.bootstrap;

import com.bettercompute.application.incluster.CarryMarketIntoClusters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs this replica's share of the market inside its tenant clusters ({@link CarryMarketIntoClusters}) on one
 * thread: a pass every {@code every}, and at once after a watch saw a change or a tick decided something. A
 * pass that fails is logged and the next one tries again; {@link #close()} lets the pass under way finish, then
 * closes every watch and gives this replica's clusters back to the others.
 */
final class InClusterMarketLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InClusterMarketLoop.class);

    private final CarryMarketIntoClusters carry;
    private final Duration every;
    private final Semaphore wake = new Semaphore(0);
    private final Thread thread;
    private volatile boolean stopping;

    /** @param carry built with the loop's {@link #wake()} as its watches' change hook */
    InClusterMarketLoop(Function<Runnable, CarryMarketIntoClusters> carry, Duration every) {
        this.carry = carry.apply(this::wake);
        this.every = every;
        this.thread = new Thread(this::run, "market-in-cluster");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Asks for a pass now (a watch saw a change, a tick decided something). */
    void wake() {
        wake.release();
    }

    private void run() {
        while (!stopping) {
            try {
                carry.pass();
            } catch (RuntimeException e) {
                LOG.error("in-cluster market pass failed; the next pass tries again", e);
            }
            try {
                wake.tryAcquire(every.toMillis(), TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops the loop after its pass under way, closes every watch and gives the clusters back. */
    @Override
    public void close() {
        stopping = true;
        wake.release();
        try {
            thread.join(Duration.ofSeconds(15).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        carry.close();
    }
}
