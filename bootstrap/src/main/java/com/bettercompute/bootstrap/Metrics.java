package com.bettercompute.bootstrap;

import com.bettercompute.application.reconcile.ReconcileCluster;

import com.bettercompute.adapters.http.Operations;
import com.bettercompute.adapters.persistence.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The server's metrics, scraped at {@code /metrics} in the Prometheus format. Every family is registered at
 * start, so a scrape shows it (at zero) before anything happened. Names, as Prometheus sees them:
 * <ul>
 *   <li>{@code bc_http_requests_seconds{route,method,status}}: each request by its route template;</li>
 *   <li>{@code bc_reconcile_passes_seconds{outcome}} and {@code bc_reconcile_oldest_due_age_seconds};</li>
 *   <li>{@code bc_provider_calls_seconds{method,result}}: each call to the provider (not the cached ones);</li>
 *   <li>{@code bc_market_tick_seconds}, {@code bc_market_grants_total}, {@code bc_market_reclaims_total},
 *       {@code bc_market_pool_failures_total}, {@code bc_market_tick_failures_total};</li>
 *   <li>{@code bc_db_pool_connections{state}} and {@code bc_db_pool_max_connections};</li>
 *   <li>the JVM's: {@code jvm_memory_*}, {@code jvm_gc_*}, {@code jvm_threads_*}, {@code jvm_classes_*},
 *       {@code process_uptime_seconds}, {@code process_cpu_usage}.</li>
 * </ul>
 */
final class Metrics implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Metrics.class);
    /** How often the reconciler's backlog is measured (a query; a scrape never waits for the database). */
    static final Duration BACKLOG_SAMPLE = Duration.ofSeconds(5);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final Counter grants;
    private final Counter reclaims;
    private final Timer tick;
    private final Counter poolFailures;
    private final Counter tickFailures;
    private final Map<RequestKey, Timer> requestTimers = new ConcurrentHashMap<>();
    private final AtomicReference<Double> oldestDueAgeSeconds = new AtomicReference<>(0.0);
    private ScheduledExecutorService sampler;

    Metrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        tick = Timer.builder("bc.market.tick").description("market ticks run by this replica (0 until the server runs the market)")
                .register(registry);
        grants = Counter.builder("bc.market.grants").description("nodes granted by market ticks").register(registry);
        reclaims = Counter.builder("bc.market.reclaims").description("nodes reclaimed by market ticks").register(registry);
        poolFailures = Counter.builder("bc.market.pool.failures")
                .description("pools whose clearing failed in a tick (left as they stood; the others cleared)").register(registry);
        tickFailures = Counter.builder("bc.market.tick.failures")
                .description("market ticks that failed and were rolled back whole").register(registry);
        for (ReconcileCluster.Outcome outcome : ReconcileCluster.Outcome.values()) {
            passTimer(outcome.name().toLowerCase(Locale.ROOT));
        }
    }

    String scrape() {
        return registry.scrape();
    }

    /** Times one HTTP request from its arrival. */
    Operations.Completion arrived() {
        long start = System.nanoTime();
        return (route, method, status) -> requestTimer(route, method, status).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }

    /**
     * The timer of a route template, method and status: built and registered once, then found in a map; a
     * builder and the registry's lookup (tags sorted, an id made) on every request cost more than the timing.
     * Route templates, methods and statuses are few, so the map stays small.
     */
    private Timer requestTimer(String route, String method, int status) {
        return requestTimers.computeIfAbsent(new RequestKey(route, method, status), k -> Timer.builder("bc.http.requests")
                .description("HTTP requests answered, by route template")
                .tags("route", k.route(), "method", k.method(), "status", Integer.toString(k.status()))
                .publishPercentileHistogram()
                .register(registry));
    }

    private record RequestKey(String route, String method, int status) {}

    /** One reconcile pass ended: {@code done}, or {@code failed} (it threw; it is tried again). */
    void reconcilePass(String outcome, long nanos) {
        passTimer(outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer passTimer(String outcome) {
        return Timer.builder("bc.reconcile.passes").description("reconcile passes run by this replica")
                .tag("outcome", outcome).register(registry);
    }

    /** One call to the provider: {@code result} is {@code ok} or what failed it (a provider error's kind). */
    void providerCall(String method, String result, long nanos) {
        Timer.builder("bc.provider.calls").description("calls to the managed-Kubernetes provider")
                .tags("method", method, "result", result).register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The hook of the market tick loop: one tick took {@code nanos} and granted and reclaimed so many nodes. */
    void marketTick(long nanos, int granted, int reclaimed) {
        tick.record(nanos, TimeUnit.NANOSECONDS);
        grants.increment(granted);
        reclaims.increment(reclaimed);
    }

    /** Pools whose clearing failed in one tick. */
    void marketPoolFailures(int pools) {
        poolFailures.increment(pools);
    }

    /** A market tick threw and was rolled back. */
    void marketTickFailed() {
        tickFailures.increment();
    }

    /** A load balancer event: {@code allocated}, {@code released}, {@code refused} (with its reason) or {@code failed}. */
    void loadBalancer(String what, String reason) {
        Counter.builder("bc.loadbalancers").description("load balancer addresses allocated and released, refusals, failed steps")
                .tags("event", what, "reason", reason == null ? "" : reason).register(registry).increment();
    }

    /** The pool's gauges, and the reconciler's backlog sampled every {@link #BACKLOG_SAMPLE}. */
    void database(Database db, Clock clock) {
        Gauge.builder("bc.db.pool.connections", db, d -> d.poolStats().active()).tag("state", "active")
                .description("database connections by state").register(registry);
        Gauge.builder("bc.db.pool.connections", db, d -> d.poolStats().idle()).tag("state", "idle").register(registry);
        Gauge.builder("bc.db.pool.connections", db, d -> d.poolStats().pending()).tag("state", "pending").register(registry);
        Gauge.builder("bc.db.pool.max.connections", db, d -> d.poolStats().max()).register(registry);
        Gauge.builder("bc.reconcile.oldest.due.age", oldestDueAgeSeconds, AtomicReference::get).baseUnit("seconds")
                .description("how long the longest-waiting due cluster has waited for its pass").register(registry);
        sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metrics-sampler");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleWithFixedDelay(() -> {
            try {
                Instant now = clock.instant();
                oldestDueAgeSeconds.set(db.oldestDueSince(now)
                        .map(since -> Math.max(0, Duration.between(since, now).toMillis()) / 1000.0).orElse(0.0));
            } catch (RuntimeException e) {
                oldestDueAgeSeconds.set(Double.NaN);
                log.debug("the reconciler's backlog cannot be measured: {}", e.getMessage());
            }
        }, 0, BACKLOG_SAMPLE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops sampling the database (call before closing it; waits for a sample under way). */
    void stopSampling() {
        if (sampler != null) {
            sampler.shutdown();
            try {
                sampler.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stopSampling();
        gc.close();
        registry.close();
    }
}
