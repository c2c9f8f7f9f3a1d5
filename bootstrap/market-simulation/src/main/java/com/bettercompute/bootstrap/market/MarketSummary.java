package com.bettercompute.bootstrap.market;

import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import com.bettercompute.domain.market.ReclaimCause;
import com.bettercompute.domain.market.Tenant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The numbers of a simulation (summary.json). Money in USD strings, durations in minutes. */
record MarketSummary(String scenario, long seed, String virtualDuration, String tick, long ticks, double wallSeconds,
                     double gpuUtilization, String revenueUsd, Map<String, String> revenueByTenantUsd,
                     Map<String, String> balanceAtEndUsd, List<PoolSummary> pools, Jobs jobs, Waits waits,
                     Waits requeueWaits, Reclaims reclaims, int nodeFailures, long replacementGrants,
                     List<String> refusedLimitWrites) {

    /** A pool: utilization is granted GPU-time over supplied GPU-time; prices over ticks that cleared. */
    record PoolSummary(String pool, int gpusPerNode, String reserveAtEndUsd, double gpuUtilization, String revenueUsd,
                       Prices price, long ticksCleared, long ticksNull, int supplyMin, int supplyMax,
                       double meanDemandNodes, double meanWaitingNodes, double meanGrantedNodes) {
    }

    record Prices(String min, String p5, String p50, String p95, String max, String mean) {
    }

    record Jobs(int submitted, int started, int completed, int runningAtEnd, int waitingAtEnd, int neverStarted) {
    }

    /** Waits in minutes: first start from arrival (or next start from requeue). */
    record Waits(int count, double meanMinutes, double p50Minutes, double p95Minutes, double maxMinutes) {
    }

    record Reclaims(int withNotice, int atOnce, Map<String, Integer> atOnceByCause, int rescinded,
                    int revokedAtDeadline) {
    }

    static MarketSummary of(SimulationResult r) {
        List<PoolSummary> pools = new ArrayList<>();
        long grantedGpuTicks = 0;
        long supplyGpuTicks = 0;
        for (Map.Entry<PoolId, List<PoolTick>> e : r.feed().series.entrySet()) {
            int perNode = r.market().pool(e.getKey()).gpusPerNode();
            List<PoolTick> series = e.getValue();
            List<Long> prices = new ArrayList<>();
            long granted = 0;
            long supply = 0;
            long demand = 0;
            long waiting = 0;
            int supplyMin = Integer.MAX_VALUE;
            int supplyMax = 0;
            for (PoolTick t : series) {
                if (t.price() != null) {
                    prices.add(t.price().micros());
                }
                granted += t.granted();
                supply += t.supply();
                demand += t.demand();
                waiting += t.waiting();
                supplyMin = Math.min(supplyMin, t.supply());
                supplyMax = Math.max(supplyMax, t.supply());
            }
            grantedGpuTicks += granted * perNode;
            supplyGpuTicks += supply * perNode;
            Collections.sort(prices);
            int n = Math.max(1, series.size());
            pools.add(new PoolSummary(e.getKey().toString(), perNode, r.market().pool(e.getKey()).reserve().toString(),
                    ratio(granted, supply), usd(r.ledger().byPool.getOrDefault(e.getKey(), 0L)), prices(prices),
                    prices.size(), series.size() - prices.size(), supplyMin == Integer.MAX_VALUE ? 0 : supplyMin,
                    supplyMax, round(demand / (double) n), round(waiting / (double) n), round(granted / (double) n)));
        }
        // revenue is what balances were charged (exact at the last tick); the ledger's entries lag by
        // at most one billing period, so per pool it is the closed entries
        Map<String, String> revenue = new TreeMap<>();
        long revenueTotal = 0;
        Map<String, String> balances = new LinkedHashMap<>();
        for (String tenant : r.initialCredits().keySet()) {
            Tenant t = r.market().tenant(tenant);
            revenue.put(tenant, usd(t.charged().micros()));
            revenueTotal += t.charged().micros();
            long balance = t.balanceMicros();
            balances.put(tenant, (balance < 0 ? "-" : "") + usd(Math.abs(balance)));
        }
        int started = 0;
        int completed = 0;
        int running = 0;
        int waitingJobs = 0;
        List<Double> waits = new ArrayList<>();
        List<Double> requeueWaits = new ArrayList<>();
        for (SimJob j : r.jobs()) {
            if (j.firstStart != null) {
                started++;
                waits.add(Duration.between(j.arrival, j.firstStart).getSeconds() / 60.0);
            }
            for (Duration d : j.requeueWaits) {
                requeueWaits.add(d.getSeconds() / 60.0);
            }
            if (j.completedAt != null) {
                completed++;
            } else if (j.running) {
                running++;
            } else if (!j.arrival.isAfter(r.start().plus(r.length()))) {
                waitingJobs++;
            }
        }
        Map<String, Integer> byCause = new TreeMap<>();
        int atOnce = 0;
        for (MarketEvent e : r.effects().log) {
            if (e instanceof MarketEvent.GangReclaimedAtOnce a) {
                atOnce++;
                byCause.merge(a.cause().name(), 1, Integer::sum);
            }
        }
        for (ReclaimCause c : ReclaimCause.values()) {
            if (!c.withNotice()) {
                byCause.putIfAbsent(c.name(), 0);
            }
        }
        int revoked = r.effects().count(MarketEvent.GangRevoked.class);
        long replacements = r.effects().log.stream()
                .filter(e -> e instanceof MarketEvent.NodeGranted g && g.replacement()).count();
        return new MarketSummary(r.scenario().name() == null ? "scenario" : r.scenario().name(), r.seed(),
                Durations.format(r.length()), Durations.format(r.tick()), r.ticks(), round(r.wallNanos() / 1e9),
                ratio(grantedGpuTicks, supplyGpuTicks), usd(revenueTotal), revenue, balances, pools,
                new Jobs(r.jobs().size(), started, completed, running, waitingJobs, r.jobs().size() - started),
                waits(waits), waits(requeueWaits),
                new Reclaims(r.effects().count(MarketEvent.PreemptionNoticed.class), atOnce, byCause,
                        r.effects().count(MarketEvent.ReclaimRescinded.class), revoked - atOnce),
                r.failures(), replacements, r.refusedWrites());
    }

    private static Prices prices(List<Long> sorted) {
        if (sorted.isEmpty()) {
            return new Prices(null, null, null, null, null, null);
        }
        long sum = 0;
        for (long p : sorted) {
            sum += p;
        }
        return new Prices(usd(sorted.get(0)), usd(quantile(sorted, 0.05)), usd(quantile(sorted, 0.5)),
                usd(quantile(sorted, 0.95)), usd(sorted.get(sorted.size() - 1)), usd(sum / sorted.size()));
    }

    /** Nearest rank. */
    static <T> T quantile(List<T> sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static Waits waits(List<Double> minutes) {
        if (minutes.isEmpty()) {
            return new Waits(0, 0, 0, 0, 0);
        }
        List<Double> sorted = new ArrayList<>(minutes);
        Collections.sort(sorted);
        double sum = 0;
        for (double m : sorted) {
            sum += m;
        }
        return new Waits(sorted.size(), round(sum / sorted.size()), round(quantile(sorted, 0.5)),
                round(quantile(sorted, 0.95)), round(sorted.get(sorted.size() - 1)));
    }

    private static double ratio(long a, long b) {
        return b == 0 ? 0 : Math.round(10_000.0 * a / b) / 10_000.0;
    }

    private static double round(double v) {
        return Math.round(v * 100.0) / 100.0;
    }

    static String usd(long micros) {
        return Money.ofMicros(micros).toString();
    }
}
