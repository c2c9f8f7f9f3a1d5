package com.bettercompute.bootstrap;

import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.reconcile.ReconcileCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code kubernetes.clusters} reconciler: every {@code poll} it asks the database which clusters
 * are due, takes each one's lease (a conditional UPDATE, so another replica on the same database never
 * works the same cluster at once), runs one pass on a worker thread and gives the lease back. The pass
 * itself saves when to look again. A replica that dies holding a lease loses it when it expires.
 */
public final class ReconcileWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReconcileWorker.class);
    static final int BATCH = 64;
    /** How long {@link #close()} waits for the passes under way: inside the 30 s a stop may take. */
    static final Duration PASSES_IN_FLIGHT = Duration.ofSeconds(20);

    private final ClusterRepository clusters;
    private final ReconcileCluster reconcile;
    private final Clock clock;
    private final String owner;
    private final Duration lease;
    private final ScheduledExecutorService poller;
    private final ExecutorService workers;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicLong passes = new java.util.concurrent.atomic.AtomicLong();
    private volatile PassListener listener = (outcome, nanos) -> { };

    /** Told of each pass as it ends: {@code done}, or {@code failed} (it threw), and how long it took. */
    @FunctionalInterface
    public interface PassListener {
        void passed(String outcome, long nanos);
    }

    public void listen(PassListener listener) {
        this.listener = listener;
    }

    public ReconcileWorker(ClusterRepository clusters, ReconcileCluster reconcile, Clock clock, String owner, Duration lease,
                    Duration poll, int threads) {
        this.clusters = clusters;
        this.reconcile = reconcile;
        this.clock = clock;
        this.owner = owner;
        this.lease = lease;
        this.poller = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "reconcile-poller"));
        this.workers = Executors.newFixedThreadPool(threads, r -> daemon(r, "reconcile-worker"));
        poller.scheduleWithFixedDelay(this::pollSafely, 0, poll.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private void pollSafely() {
        try {
            poll();
        } catch (RuntimeException e) {
            log.warn("reconcile poll failed: {}", e.getMessage());
        }
    }

    private void poll() {
        Instant now = clock.instant();
        for (String id : clusters.due(now, BATCH)) {
            if (running.contains(id) || !clusters.claim(id, owner, now, now.plus(lease))) {
                continue;
            }
            running.add(id);
            workers.execute(() -> pass(id));
        }
    }

    private void pass(String id) {
        long start = System.nanoTime();
        org.slf4j.MDC.put("clusterId", id);
        try {
            reconcile.reconcile(id);
            passes.incrementAndGet();
            listener.passed("done", System.nanoTime() - start);
        } catch (RuntimeException e) {
            listener.passed("failed", System.nanoTime() - start);
            log.error("reconcile pass of cluster {} failed", id, e);
        } finally {
            org.slf4j.MDC.remove("clusterId");
            try {
                clusters.release(id, owner);
            } catch (RuntimeException e) {
                log.warn("releasing the lease of cluster {} failed: {}", id, e.getMessage());
            }
            running.remove(id);
        }
    }

    /** Passes run so far (for the load run's numbers). */
    public long passes() {
        return passes.get();
    }

    /**
     * Takes no new passes and waits up to {@code PASSES_IN_FLIGHT} for those claimed to end (each gives its lease
     * back). Never interrupts: a thread interrupted inside an H2 call closes the whole database.
     */
    @Override
    public void close() {
        poller.shutdown();
        try {
            // a poll under way hands its claimed clusters to the workers: they must still take them
            poller.awaitTermination(PASSES_IN_FLIGHT.toSeconds(), TimeUnit.SECONDS);
            workers.shutdown();
            if (!workers.awaitTermination(PASSES_IN_FLIGHT.toSeconds(), TimeUnit.SECONDS)) {
                log.warn("reconcile passes still running after {} s; their leases expire on their own", PASSES_IN_FLIGHT.toSeconds());
            }
        } catch (InterruptedException e) {
            workers.shutdown();
            Thread.currentThread().interrupt();
        }
    }
}
