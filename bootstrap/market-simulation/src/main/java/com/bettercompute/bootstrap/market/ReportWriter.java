package com.bettercompute.bootstrap.market;

import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a simulation's report: summary.json and summary.txt (the numbers), report.html (the
 * picture: price, supply, demand, granted and queue over time, one chart per pool), events.csv
 * (every grant, notice, reclaim, rescind and revocation, with prices), jobs.csv and feed.csv.
 */
final class ReportWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportWriter() {
    }

    static void write(SimulationResult result, MarketSummary summary, Path dir) {
        try {
            Files.createDirectories(dir);
            JSON.writeValue(dir.resolve("summary.json").toFile(), summary);
            Files.writeString(dir.resolve("summary.txt"), text(summary));
            Files.writeString(dir.resolve("events.csv"), eventsCsv(result));
            Files.writeString(dir.resolve("jobs.csv"), jobsCsv(result));
            Files.writeString(dir.resolve("feed.csv"), feedCsv(result));
            Files.writeString(dir.resolve("report.html"), html(result, summary));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + dir + ": " + e.getMessage(), e);
        }
    }

    static String text(MarketSummary s) {
        StringBuilder b = new StringBuilder();
        b.append("Market simulation: ").append(s.scenario()).append(" (seed ").append(s.seed()).append(")\n");
        b.append(String.format(Locale.ROOT, "  virtual time %s in %d ticks of %s, run in %.2f s%n", s.virtualDuration(),
                s.ticks(), s.tick(), s.wallSeconds()));
        b.append(String.format(Locale.ROOT, "  GPU utilization %.1f%% (granted GPU-time / supplied GPU-time)%n",
                s.gpuUtilization() * 100));
        b.append("  revenue ").append(s.revenueUsd()).append(" USD");
        s.revenueByTenantUsd().forEach((t, v) -> b.append("; ").append(t).append(' ').append(v));
        b.append('\n');
        b.append("  balances at end:");
        s.balanceAtEndUsd().forEach((t, v) -> b.append(' ').append(t).append(' ').append(v));
        b.append('\n');
        MarketSummary.Jobs j = s.jobs();
        b.append(String.format(Locale.ROOT, "  jobs: %d submitted, %d started, %d completed, %d running at end, "
                + "%d waiting at end%n", j.submitted(), j.started(), j.completed(), j.runningAtEnd(), j.waitingAtEnd()));
        b.append(waits("  wait to first start", s.waits()));
        b.append(waits("  wait after a requeue", s.requeueWaits()));
        MarketSummary.Reclaims r = s.reclaims();
        b.append(String.format(Locale.ROOT, "  reclaims: %d with notice (%d rescinded, %d revoked at the deadline), "
                + "%d at once %s%n", r.withNotice(), r.rescinded(), r.revokedAtDeadline(), r.atOnce(),
                r.atOnceByCause()));
        b.append(String.format(Locale.ROOT, "  node failures %d, replacement grants %d%n", s.nodeFailures(),
                s.replacementGrants()));
        for (MarketSummary.PoolSummary p : s.pools()) {
            b.append("  pool ").append(p.pool()).append(String.format(Locale.ROOT,
                    ": utilization %.1f%%, revenue %s USD, supply %d..%d nodes, mean demand %.1f, mean queue %.1f nodes%n",
                    p.gpuUtilization() * 100, p.revenueUsd(), p.supplyMin(), p.supplyMax(), p.meanDemandNodes(),
                    p.meanWaitingNodes()));
            MarketSummary.Prices pr = p.price();
            b.append(String.format(Locale.ROOT, "    price USD/GPU-h: min %s p5 %s p50 %s p95 %s max %s mean %s; "
                    + "%d ticks cleared, %d null; reserve at end %s%n", pr.min(), pr.p5(), pr.p50(), pr.p95(),
                    pr.max(), pr.mean(), p.ticksCleared(), p.ticksNull(), p.reserveAtEndUsd()));
        }
        if (!s.refusedLimitWrites().isEmpty()) {
            b.append("  refused limit writes:\n");
            s.refusedLimitWrites().forEach(w -> b.append("    ").append(w).append('\n'));
        }
        return b.toString();
    }

    private static String waits(String label, MarketSummary.Waits w) {
        return String.format(Locale.ROOT, "%s (min): n %d, mean %.1f, p50 %.1f, p95 %.1f, max %.1f%n", label, w.count(),
                w.meanMinutes(), w.p50Minutes(), w.p95Minutes(), w.maxMinutes());
    }

    private static String offset(Instant start, Instant at) {
        return Durations.format(Duration.between(start, at));
    }

    static String eventsCsv(SimulationResult r) {
        StringBuilder b = new StringBuilder("time,offset,event,pool,cluster,job,request,nodes,price_usd_per_gpu_hour,"
                + "detail\n");
        for (MarketEvent e : r.effects().log) {
            String at = e.at() + "," + offset(r.start(), e.at()) + ",";
            if (e instanceof MarketEvent.NodeGranted g) {
                b.append(at).append("NodeGranted,").append(g.pool()).append(',').append(g.clusterId()).append(',')
                        .append(g.jobId()).append(',').append(g.requestId()).append(',').append(g.nodeId()).append(',')
                        .append(g.lockedRate()).append(",protected until ").append(g.protectedUntil())
                        .append(g.replacement() ? " (replacement at the cluster's locked rate)" : "").append('\n');
            } else if (e instanceof MarketEvent.GangProvisioned p) {
                b.append(at).append("GangProvisioned,").append(p.pool()).append(',').append(p.clusterId()).append(',')
                        .append(p.jobId()).append(',').append(p.requestId()).append(',').append(p.nodes()).append(',')
                        .append(p.lockedRate()).append(",\n");
            } else if (e instanceof MarketEvent.PreemptionNoticed n) {
                b.append(at).append("PreemptionNoticed,").append(n.pool()).append(',').append(n.clusterId()).append(',')
                        .append(n.jobId()).append(',').append(n.requestId()).append(',')
                        .append(String.join(" ", n.nodeIds())).append(',').append(n.price() == null ? "" : n.price())
                        .append(",deadline ").append(n.deadline()).append('\n');
            } else if (e instanceof MarketEvent.GangReclaimedAtOnce a) {
                b.append(at).append("GangReclaimedAtOnce,").append(a.pool()).append(',').append(a.clusterId())
                        .append(',').append(a.jobId()).append(',').append(a.requestId()).append(',')
                        .append(String.join(" ", a.nodeIds())).append(",,").append(a.cause()).append('\n');
            } else if (e instanceof MarketEvent.ReclaimRescinded x) {
                b.append(at).append("ReclaimRescinded,,").append(x.clusterId()).append(',').append(x.jobId())
                        .append(',').append(x.requestId()).append(',').append(String.join(" ", x.nodeIds()))
                        .append(",,\n");
            } else if (e instanceof MarketEvent.GangRevoked v) {
                b.append(at).append("GangRevoked,,").append(v.clusterId()).append(',').append(v.jobId()).append(',')
                        .append(v.requestId()).append(",,,requeued as ").append(v.requeuedAs()).append('\n');
            } else if (e instanceof MarketEvent.NodeReleased n) {
                b.append(at).append("NodeReleased,").append(n.pool()).append(',').append(n.clusterId()).append(",,,")
                        .append(n.nodeId()).append(",,\n");
            } else if (e instanceof MarketEvent.BlockSeated s) {
                b.append(at).append("BlockSeated,,").append(s.clusterId()).append(',').append(s.jobId()).append(',')
                        .append(s.requestId()).append(',').append(s.nodeId()).append(",,").append(s.gpus())
                        .append(" GPUs\n");
            } else if (e instanceof MarketEvent.RequestFiled f) {
                b.append(at).append("RequestFiled,").append(f.pool()).append(',').append(f.clusterId()).append(',')
                        .append(f.jobId()).append(',').append(f.requestId()).append(",,,").append(f.gpus())
                        .append(" GPUs\n");
            }
        }
        return b.toString();
    }

    static String jobsCsv(SimulationResult r) {
        StringBuilder b = new StringBuilder("job,cluster,tenant,pool,gpus,limit,priority,arrival,first_start,wait_minutes,"
                + "first_locked_rate,completed,reclaims,remaining\n");
        for (SimJob j : r.jobs()) {
            b.append(j.id).append(',').append(j.clusterId).append(',').append(j.tenantId).append(',').append(j.pool)
                    .append(',').append(j.gpus).append(',').append(j.limit == null ? "cluster" : j.limit).append(',')
                    .append(j.priority == null ? "" : j.priority).append(',').append(offset(r.start(), j.arrival))
                    .append(',').append(j.firstStart == null ? "" : offset(r.start(), j.firstStart)).append(',')
                    .append(j.firstStart == null ? "" : String.format(Locale.ROOT, "%.1f",
                            Duration.between(j.arrival, j.firstStart).getSeconds() / 60.0)).append(',')
                    .append(j.firstLockedRate == null ? "" : j.firstLockedRate).append(',')
                    .append(j.completedAt == null ? "" : offset(r.start(), j.completedAt)).append(',')
                    .append(j.reclaims).append(',').append(Durations.format(j.remaining)).append('\n');
        }
        return b.toString();
    }

    static String feedCsv(SimulationResult r) {
        StringBuilder b = new StringBuilder("time,offset,pool,price,reserve,supply,free,demand,waiting,granted\n");
        for (List<PoolTick> series : r.feed().series.values()) {
            for (PoolTick t : series) {
                b.append(t.at()).append(',').append(offset(r.start(), t.at())).append(',').append(t.pool()).append(',')
                        .append(t.price() == null ? "null" : t.price()).append(',').append(t.reserve()).append(',')
                        .append(t.supply()).append(',').append(t.free()).append(',').append(t.demand()).append(',')
                        .append(t.waiting()).append(',').append(t.granted()).append('\n');
            }
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- the picture

    static String html(SimulationResult r, MarketSummary s) {
        StringBuilder b = new StringBuilder();
        b.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Market simulation: ")
                .append(esc(s.scenario())).append("</title>\n<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px;"
                        + "color:#222;max-width:1100px}h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
                        + "table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;"
                        + "text-align:left}td.n{text-align:right}.k{color:#666}pre{background:#f6f6f6;padding:8px}"
                        + "</style></head><body>\n");
        b.append("<h1>Market simulation: ").append(esc(s.scenario())).append("</h1>\n");
        b.append("<p class=\"k\">seed ").append(s.seed()).append(", ").append(s.virtualDuration())
                .append(" of virtual time in ").append(s.ticks()).append(" ticks of ").append(s.tick())
                .append(String.format(Locale.ROOT, ", run in %.2f s", s.wallSeconds())).append("</p>\n");
        b.append("<table>");
        row(b, "GPU utilization", String.format(Locale.ROOT, "%.1f%%", s.gpuUtilization() * 100));
        row(b, "Revenue", s.revenueUsd() + " USD");
        row(b, "Jobs", s.jobs().submitted() + " submitted, " + s.jobs().started() + " started, "
                + s.jobs().completed() + " completed");
        row(b, "Wait to first start", String.format(Locale.ROOT, "mean %.1f min, p50 %.1f, p95 %.1f",
                s.waits().meanMinutes(), s.waits().p50Minutes(), s.waits().p95Minutes()));
        row(b, "Reclaims with notice", s.reclaims().withNotice() + " (" + s.reclaims().rescinded() + " rescinded, "
                + s.reclaims().revokedAtDeadline() + " revoked at the deadline)");
        row(b, "Reclaims at once", s.reclaims().atOnce() + " " + s.reclaims().atOnceByCause());
        row(b, "Node failures / replacement grants", s.nodeFailures() + " / " + s.replacementGrants());
        b.append("</table>\n");
        for (Map.Entry<PoolId, List<PoolTick>> e : r.feed().series.entrySet()) {
            MarketSummary.PoolSummary p = s.pools().stream().filter(x -> x.pool().equals(e.getKey().toString()))
                    .findFirst().orElseThrow();
            b.append("<h2>").append(esc(e.getKey().toString())).append("</h2>\n<p class=\"k\">")
                    .append(String.format(Locale.ROOT, "utilization %.1f%%, revenue %s USD, price p5 %s / p50 %s / p95 %s "
                                    + "USD per GPU-hour, %d ticks with no clearing price", p.gpuUtilization() * 100,
                            p.revenueUsd(), p.price().p5(), p.price().p50(), p.price().p95(), p.ticksNull()))
                    .append("</p>\n");
            b.append(chart(r, e.getKey(), e.getValue()));
        }
        b.append("<h2>Summary</h2>\n<pre>").append(esc(text(s))).append("</pre>\n");
        b.append("<p class=\"k\">Every grant, notice, reclaim, rescind and revocation with its price is in events.csv; "
                + "per job in jobs.csv; the market feed in feed.csv.</p>\n</body></html>\n");
        return b.toString();
    }

    private static void row(StringBuilder b, String k, String v) {
        b.append("<tr><th>").append(esc(k)).append("</th><td>").append(esc(v)).append("</td></tr>");
    }

    private static final int W = 1040;
    private static final int H = 340;
    private static final int L = 56;
    private static final int R = 64;
    private static final int T = 30;
    private static final int B = 46;

    /** One pool's chart: nodes on the left axis, price on the right, reclaims as marks under the time axis. */
    static String chart(SimulationResult r, PoolId pool, List<PoolTick> series) {
        int buckets = Math.min(series.size(), 700);
        double[] supply = new double[buckets];
        double[] demand = new double[buckets];
        double[] granted = new double[buckets];
        double[] waiting = new double[buckets];
        double[] price = new double[buckets];
        double[] reserve = new double[buckets];
        int[] counts = new int[buckets];
        int[] priced = new int[buckets];
        for (int i = 0; i < series.size(); i++) {
            int k = (int) ((long) i * buckets / series.size());
            PoolTick t = series.get(i);
            supply[k] += t.supply();
            demand[k] += t.demand();
            granted[k] += t.granted();
            waiting[k] += t.waiting();
            reserve[k] += t.reserve().toDouble();
            counts[k]++;
            if (t.price() != null) {
                price[k] += t.price().toDouble();
                priced[k]++;
            }
        }
        double maxNodes = 1;
        double maxPrice = 0.01;
        for (int k = 0; k < buckets; k++) {
            supply[k] /= counts[k];
            demand[k] /= counts[k];
            granted[k] /= counts[k];
            waiting[k] /= counts[k];
            reserve[k] /= counts[k];
            price[k] = priced[k] == 0 ? Double.NaN : price[k] / priced[k];
            maxNodes = Math.max(maxNodes, Math.max(supply[k], demand[k]));
            maxPrice = Math.max(maxPrice, Math.max(reserve[k], Double.isNaN(price[k]) ? 0 : price[k]));
        }
        maxNodes = nice(maxNodes * 1.08);
        maxPrice = nice(maxPrice * 1.1);
        double plotW = W - L - R;
        double plotH = H - T - B;
        double seconds = Math.max(1, r.length().getSeconds());
        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" viewBox=\"0 0 ").append(W).append(' ').append(H).append("\" font-family=\"system-ui,sans-serif\""
                        + " font-size=\"11\" role=\"img\" aria-label=\"price, supply, demand and queue of ")
                .append(esc(pool.toString())).append("\">\n");
        s.append("<rect x=\"").append(L).append("\" y=\"").append(T).append("\" width=\"").append(fmt(plotW))
                .append("\" height=\"").append(fmt(plotH)).append("\" fill=\"#fcfcfc\" stroke=\"#ccc\"/>\n");
        for (int i = 0; i <= 5; i++) {
            double y = T + plotH - plotH * i / 5;
            s.append("<line x1=\"").append(L).append("\" x2=\"").append(fmt(L + plotW)).append("\" y1=\"").append(fmt(y))
                    .append("\" y2=\"").append(fmt(y)).append("\" stroke=\"#eee\"/>");
            s.append("<text x=\"").append(L - 6).append("\" y=\"").append(fmt(y + 4)).append("\" text-anchor=\"end\">")
                    .append(fmt(maxNodes * i / 5)).append("</text>");
            s.append("<text x=\"").append(fmt(L + plotW + 6)).append("\" y=\"").append(fmt(y + 4)).append("\" fill=\"#1a7f37\">$")
                    .append(String.format(Locale.ROOT, "%.2f", maxPrice * i / 5)).append("</text>\n");
        }
        long step = timeStep(r.length());
        for (long sec = 0; sec <= seconds; sec += step) {
            double x = L + plotW * sec / seconds;
            s.append("<line x1=\"").append(fmt(x)).append("\" x2=\"").append(fmt(x)).append("\" y1=\"").append(T)
                    .append("\" y2=\"").append(fmt(T + plotH)).append("\" stroke=\"#f0f0f0\"/>");
            s.append("<text x=\"").append(fmt(x)).append("\" y=\"").append(fmt(T + plotH + 14))
                    .append("\" text-anchor=\"middle\">").append(Durations.format(Duration.ofSeconds(sec)))
                    .append("</text>\n");
        }
        s.append("<text x=\"14\" y=\"").append(fmt(T + plotH / 2)).append("\" transform=\"rotate(-90 14 ")
                .append(fmt(T + plotH / 2)).append(")\" text-anchor=\"middle\">nodes</text>");
        s.append("<text x=\"").append(W - 12).append("\" y=\"").append(fmt(T + plotH / 2)).append("\" transform=\"rotate(90 ")
                .append(W - 12).append(' ').append(fmt(T + plotH / 2))
                .append(")\" text-anchor=\"middle\" fill=\"#1a7f37\">USD per GPU-hour</text>\n");

        double dx = plotW / buckets;
        // granted: a filled area
        StringBuilder area = new StringBuilder().append(fmt(L)).append(',').append(fmt(T + plotH));
        for (int k = 0; k < buckets; k++) {
            double y = T + plotH - plotH * granted[k] / maxNodes;
            area.append(' ').append(fmt(L + k * dx)).append(',').append(fmt(y)).append(' ').append(fmt(L + (k + 1) * dx))
                    .append(',').append(fmt(y));
        }
        area.append(' ').append(fmt(L + plotW)).append(',').append(fmt(T + plotH));
        s.append("<polygon points=\"").append(area).append("\" fill=\"#9ecae1\" fill-opacity=\"0.6\"/>\n");
        s.append(line(supply, maxNodes, dx, plotH, "#333", "1.6", null));
        s.append(line(demand, maxNodes, dx, plotH, "#e6550d", "1.4", null));
        s.append(line(waiting, maxNodes, dx, plotH, "#756bb1", "1.2", "4 3"));
        s.append(line(reserve, maxPrice, dx, plotH, "#999", "1", "2 3"));
        s.append(line(price, maxPrice, dx, plotH, "#1a7f37", "1.8", null));
        // reclaims under the axis: notices red, at once black
        for (MarketEvent e : r.effects().log) {
            String color = null;
            if (e instanceof MarketEvent.PreemptionNoticed n && n.pool().equals(pool)) {
                color = "#d62728";
            } else if (e instanceof MarketEvent.GangReclaimedAtOnce a && a.pool().equals(pool)) {
                color = "#000";
            }
            if (color != null) {
                double x = L + plotW * Duration.between(r.start(), e.at()).getSeconds() / seconds;
                s.append("<line x1=\"").append(fmt(x)).append("\" x2=\"").append(fmt(x)).append("\" y1=\"")
                        .append(fmt(T + plotH + 20)).append("\" y2=\"").append(fmt(T + plotH + 28))
                        .append("\" stroke=\"").append(color).append("\"/>");
            }
        }
        String[][] legend = {{"#333", "supply"}, {"#e6550d", "demand"}, {"#9ecae1", "granted"},
                {"#756bb1", "queue (waiting)"}, {"#1a7f37", "clearing price"}, {"#999", "reserve"},
                {"#d62728", "notice"}, {"#000", "reclaim at once"}};
        double lx = L;
        for (String[] item : legend) {
            s.append("<rect x=\"").append(fmt(lx)).append("\" y=\"10\" width=\"14\" height=\"8\" fill=\"")
                    .append(item[0]).append("\"/><text x=\"").append(fmt(lx + 18)).append("\" y=\"18\">")
                    .append(item[1]).append("</text>");
            lx += 34 + item[1].length() * 7.0;
        }
        s.append("\n</svg>\n");
        return s.toString();
    }

    private static String line(double[] values, double max, double dx, double plotH, String color, String width,
                               String dash) {
        StringBuilder s = new StringBuilder();
        List<String> segments = new ArrayList<>();
        StringBuilder seg = new StringBuilder();
        for (int k = 0; k < values.length; k++) {
            if (Double.isNaN(values[k])) {
                if (seg.length() > 0) {
                    segments.add(seg.toString());
                    seg.setLength(0);
                }
                continue;
            }
            double y = T + plotH - plotH * Math.min(values[k], max) / max;
            seg.append(fmt(L + k * dx)).append(',').append(fmt(y)).append(' ').append(fmt(L + (k + 1) * dx)).append(',')
                    .append(fmt(y)).append(' ');
        }
        if (seg.length() > 0) {
            segments.add(seg.toString());
        }
        for (String points : segments) {
            s.append("<polyline points=\"").append(points.trim()).append("\" fill=\"none\" stroke=\"").append(color)
                    .append("\" stroke-width=\"").append(width).append('"');
            if (dash != null) {
                s.append(" stroke-dasharray=\"").append(dash).append('"');
            }
            s.append("/>\n");
        }
        return s.toString();
    }

    private static long timeStep(Duration length) {
        long[] steps = {60, 300, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800};
        for (long st : steps) {
            if (length.getSeconds() / st <= 12) {
                return st;
            }
        }
        return 604800;
    }

    private static double nice(double v) {
        double exp = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (m * exp >= v) {
                return m * exp;
            }
        }
        return 10 * exp;
    }

    private static String fmt(double v) {
        if (v == Math.rint(v)) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
