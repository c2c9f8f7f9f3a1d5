package com.bettercompute.bootstrap;

import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.application.reconcile.ReconcileCluster.Pass;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the {@code kubernetes.clusters} reconciler: every {@code poll} it asks the database which clusters
 * are due, takes each one's lease (a conditional UPDATE, so another replica on the same database never
 * works the same cluster at once), runs one pass on a worker thread and gives the lease back. A pass says
 * when to look again: within {@code lease} that is scheduled here (a conflict or a converging cluster is
 * looked at on time, not at the next poll); the time is also saved on the row, so the poll — and any other
 * replica — finds it anyway. A replica that dies holding a lease loses it when it expires; started again under the
 * same id, it takes it back at once (the poll finds its own leases due; {@code running} keeps its passes in flight
 * from running twice).
 *
 * <p>{@link #close()} is graceful: no new pass is claimed, the passes in flight finish (at most
 * {@code drain}), every lease this worker holds is released, and only then it returns, so the database can
 * be closed after it.
 */
public final class ReconcileWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReconcileWorker.class);
    static final int BATCH = 64;

    /** Hooks for metrics and logs. Called on the worker's threads; must be quick and must not throw. */
    public interface Listener {
        /** A pass ended ({@link ReconcileCluster.Outcome#FAILED} when it threw) after {@code took}. */
        void onPass(Pass pass, Duration took);

        /** A poll found {@code due} clusters due (at most the batch), of which it claimed {@code claimed}. */
        default void onPoll(int due, int claimed) {
        }

        Listener NONE = (pass, took) -> { };
    }

    private final ClusterRepository clusters;
    private final ReconcileCluster reconcile;
    private final Clock clock;
    private final String owner;
    private final Duration lease;
    private final Duration drain;
    private final Listener listener;
    private final ScheduledExecutorService poller;
    private final ExecutorService workers;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong providerCalls = new AtomicLong();
    private volatile boolean closing;

    public ReconcileWorker(ClusterRepository clusters, ReconcileCluster reconcile, Clock clock, String owner, Duration lease,
                           Duration poll, int threads) {
        this(clusters, reconcile, clock, owner, lease, poll, threads, Duration.ofSeconds(20), Listener.NONE);
    }

    /**
     * @param drain    how long {@link #close()} waits for the passes in flight
     * @param listener told of every pass and poll
     */
    public ReconcileWorker(ClusterRepository clusters, ReconcileCluster reconcile, Clock clock, String owner, Duration lease,
                           Duration poll, int threads, Duration drain, Listener listener) {
        this.clusters = clusters;
        this.reconcile = reconcile;
        this.clock = clock;
        this.owner = owner;
        this.lease = lease;
        this.drain = drain;
        this.listener = listener;
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "reconcile-poller"));
        // on close, looks scheduled for later are dropped (the rows keep their times), not run
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.poller = scheduler;
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
        List<String> due = clusters.due(now, owner, BATCH);
        int claimed = 0;
        for (String id : due) {
            if (closing) {
                break;
            }
            if (claimAndRun(id, now)) {
                claimed++;
            }
        }
        listener.onPoll(due.size(), claimed);
    }

    /** Takes the cluster (in this process, then its lease) and hands it to a worker; false if someone has it. */
    private boolean claimAndRun(String id, Instant now) {
        if (closing || !running.add(id)) {
            return false;
        }
        boolean handed = false;
        try {
            if (clusters.claim(id, owner, now, now.plus(lease))) {
                workers.execute(() -> pass(id));
                handed = true;
            }
        } catch (RejectedExecutionException e) {
            // closing: the lease is given back below
            release(id);
        } finally {
            if (!handed) {
                running.remove(id);
            }
        }
        return handed;
    }

    private void pass(String id) {
        if (closing) {
            // claimed before close began, not started: give it back untouched
            release(id);
            running.remove(id);
            return;
        }
        long start = System.nanoTime();
        Pass pass = new Pass(ReconcileCluster.Outcome.FAILED, null, 0);
        org.slf4j.MDC.put("clusterId", id);
        try {
            pass = reconcile.reconcile(id);
            passes.incrementAndGet();
            providerCalls.addAndGet(pass.providerCalls());
        } catch (RuntimeException e) {
            log.error("reconcile pass of cluster {} failed", id, e);
        } finally {
            org.slf4j.MDC.remove("clusterId");
            release(id);
            running.remove(id);
        }
        listener.onPass(pass, Duration.ofNanos(System.nanoTime() - start));
        scheduleNext(id, pass.next());
    }

    /** The next look, when it is soon: here, on time, rather than at the next poll after it. */
    private void scheduleNext(String id, Duration next) {
        if (closing || next == null || next.compareTo(lease) > 0) {
            return;
        }
        try {
            poller.schedule(() -> {
                try {
                    claimAndRun(id, clock.instant());
                } catch (RuntimeException e) {
                    log.warn("reconcile of cluster {} could not be started: {}", id, e.getMessage());
                }
            }, Math.max(0, next.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closing: the poll of another replica (or of the next start) finds it by its saved time
        }
    }

    private void release(String id) {
        try {
            clusters.release(id, owner);
        } catch (RuntimeException e) {
            log.warn("releasing the lease of cluster {} failed: {}", id, e.getMessage());
        }
    }

    /** Whether {@link #close()} has begun. */
    boolean closing() {
        return closing;
    }

    /** Passes run so far (for the load run's numbers). */
    public long passes() {
        return passes.get();
    }

    /** Provider calls the passes made so far (calls of the port). */
    public long providerCalls() {
        return providerCalls.get();
    }

    /**
     * Stops claiming, lets the passes in flight finish (at most {@code drain}), releases every lease still held,
     * and returns. No thread is interrupted: an interrupt in the middle of a database call closes H2's file
     * (a {@code ClosedByInterruptException}), which would break the database for everyone after us.
     */
    @Override
    public void close() {
        closing = true;
        poller.shutdown();
        workers.shutdown();
        try {
            if (!workers.awaitTermination(drain.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("reconcile: {} passes still running after {}; their leases are given back now", running.size(), drain);
            }
            poller.awaitTermination(drain.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String id : List.copyOf(running)) {
            release(id);
        }
    }
}
