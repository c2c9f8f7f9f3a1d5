package com.bettercompute.bootstrap;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * What {@code /readyz} reports: each check's problem, or nothing. A check's answer is kept for {@link #TTL}
 * so scrapes and probes cost the database and the provider one call per check every few seconds; a check
 * that takes longer than {@link #TIMEOUT} is reported as not answering, and is not started again while it
 * still runs. Once the server stops, it is not ready, whatever the checks say.
 */
final class Readiness implements AutoCloseable {
    static final Duration TTL = Duration.ofSeconds(5);
    static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Map<String, Check> checks = new LinkedHashMap<>();
    private final ExecutorService runner = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "readiness-check");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean stopping;

    /** Adds a check: {@code problem} says what is wrong, or nothing. Checks are reported in the order added. */
    Readiness check(String name, Supplier<Optional<String>> problem) {
        checks.put(name, new Check(name, problem));
        return this;
    }

    /** From now on the server is not ready: it is stopping. */
    void stopping() {
        stopping = true;
    }

    Map<String, String> missing() {
        Map<String, String> missing = new LinkedHashMap<>();
        if (stopping) {
            missing.put("server", "stopping");
            return missing;
        }
        for (Check check : checks.values()) {
            check.problem().ifPresent(p -> missing.put(check.name, p));
        }
        return missing;
    }

    /** Waits (a little) for the checks under way: they use the database and the provider, closed next. */
    @Override
    public void close() {
        stopping = true;
        runner.shutdown();
        try {
            runner.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Check {
        final String name;
        final Supplier<Optional<String>> problem;
        private CompletableFuture<Optional<String>> running;
        private Optional<String> last;
        private long lastAt;

        Check(String name, Supplier<Optional<String>> problem) {
            this.name = name;
            this.problem = problem;
        }

        synchronized Optional<String> problem() {
            if (running == null && (last == null || System.nanoTime() - lastAt > TTL.toNanos())) {
                running = CompletableFuture.supplyAsync(() -> {
                    try {
                        return problem.get();
                    } catch (RuntimeException e) {
                        return Optional.of("check failed: " + e.getClass().getSimpleName());
                    }
                }, runner);
            }
            if (running != null) {
                try {
                    last = running.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    lastAt = System.nanoTime();
                    running = null;
                } catch (TimeoutException e) {
                    return Optional.of("does not answer within " + TIMEOUT.toSeconds() + " s");
                } catch (ExecutionException e) {
                    running = null;
                    return Optional.of("check failed");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.of("check interrupted");
                }
            }
            return last;
        }
    }
}
