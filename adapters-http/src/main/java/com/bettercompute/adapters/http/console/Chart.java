package com.bettercompute.adapters.http.console;

import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolTick;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * One pool's ticks as an SVG chart, drawn as the simulator's report draws its pools: granted nodes as a
 * filled area, supply and demand as lines against the node axis on the left; the clearing price and the
 * reserve against the price axis on the right. A tick that cleared nothing leaves a gap in the price line.
 */
final class Chart {
    static final int W = 760;
    static final int H = 280;
    private static final int L = 44;
    private static final int R = 64;
    private static final int T = 34;
    private static final int B = 30;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    private Chart() {}

    static String svg(String pool, List<PoolTick> ticks) {
        double plotW = W - L - R;
        double plotH = H - T - B;
        StringBuilder s = new StringBuilder(4096);
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(W).append(' ').append(H)
                .append("\" role=\"img\" aria-label=\"Price, supply, demand and granted nodes of ").append(esc(pool))
                .append(" over the last ").append(ticks.size()).append(" ticks\" class=\"chart-svg\">");
        s.append("<rect class=\"plot\" x=\"").append(L).append("\" y=\"").append(T).append("\" width=\"").append(f(plotW))
                .append("\" height=\"").append(f(plotH)).append("\"/>");
        if (ticks.isEmpty()) {
            s.append("<text class=\"empty\" x=\"").append(f(L + plotW / 2)).append("\" y=\"").append(f(T + plotH / 2))
                    .append("\" text-anchor=\"middle\">No ticks yet</text></svg>");
            return s.toString();
        }
        double maxNodes = 1;
        double maxPrice = 0.01;
        for (PoolTick t : ticks) {
            maxNodes = Math.max(maxNodes, Math.max(t.supply(), Math.max(t.demand(), t.granted())));
            maxPrice = Math.max(maxPrice, Math.max(dollars(t.reserve()), dollars(t.price())));
        }
        // a multiple of the four grid steps, so every node label is a whole number
        maxNodes = Math.ceil(maxNodes * 1.1 / 4) * 4;
        maxPrice = maxPrice * 1.15;
        for (int i = 0; i <= 4; i++) {
            double y = T + plotH - plotH * i / 4;
            s.append("<line class=\"grid\" x1=\"").append(L).append("\" x2=\"").append(f(L + plotW)).append("\" y1=\"")
                    .append(f(y)).append("\" y2=\"").append(f(y)).append("\"/>");
            s.append("<text class=\"axis\" x=\"").append(L - 6).append("\" y=\"").append(f(y + 4)).append("\" text-anchor=\"end\">")
                    .append(f(maxNodes * i / 4)).append("</text>");
            s.append("<text class=\"axis axis-price\" x=\"").append(f(L + plotW + 6)).append("\" y=\"").append(f(y + 4)).append("\">$")
                    .append(String.format(Locale.ROOT, "%.2f", maxPrice * i / 4)).append("</text>");
        }
        Instant first = ticks.get(0).at();
        Instant last = ticks.get(ticks.size() - 1).at();
        double span = Math.max(1, Duration.between(first, last).toMillis());
        double step = plotW / Math.max(1, ticks.size());
        double[] xs = new double[ticks.size()];
        for (int k = 0; k < ticks.size(); k++) {
            xs[k] = ticks.size() == 1 ? L + plotW / 2
                    : L + plotW * Duration.between(first, ticks.get(k).at()).toMillis() / span;
        }
        for (int k = 0; k < 5 && ticks.size() > 1; k++) {
            double x = L + plotW * k / 4;
            Instant at = first.plusMillis((long) (span * k / 4));
            s.append("<text class=\"axis\" x=\"").append(f(x)).append("\" y=\"").append(f(T + plotH + 18))
                    .append("\" text-anchor=\"middle\">").append(CLOCK.format(at)).append("</text>");
        }
        StringBuilder area = new StringBuilder().append(f(xs[0])).append(',').append(f(T + plotH));
        for (int k = 0; k < ticks.size(); k++) {
            double y = y(ticks.get(k).granted(), maxNodes, plotH);
            area.append(' ').append(f(xs[k])).append(',').append(f(y)).append(' ').append(f(next(xs, k))).append(',').append(f(y));
        }
        area.append(' ').append(f(xs[ticks.size() - 1])).append(',').append(f(T + plotH));
        s.append("<polygon class=\"area-granted\" points=\"").append(area).append("\"/>");
        s.append(line(ticks, xs, maxNodes, plotH, "supply", t -> (double) t.supply()));
        s.append(line(ticks, xs, maxNodes, plotH, "demand", t -> (double) t.demand()));
        s.append(line(ticks, xs, maxPrice, plotH, "reserve", t -> dollars(t.reserve())));
        s.append(line(ticks, xs, maxPrice, plotH, "price", t -> t.price() == null ? Double.NaN : dollars(t.price())));
        String[][] legend = {{"supply", "supply"}, {"demand", "demand"}, {"granted", "granted"},
                {"price", "clearing price"}, {"reserve", "reserve"}};
        double lx = L;
        for (String[] item : legend) {
            s.append("<rect class=\"key key-").append(item[0]).append("\" x=\"").append(f(lx)).append("\" y=\"12\" width=\"14\" height=\"8\"/>")
                    .append("<text class=\"legend\" x=\"").append(f(lx + 19)).append("\" y=\"20\">").append(item[1]).append("</text>");
            lx += 36 + item[1].length() * 6.6;
        }
        s.append("<text class=\"axis\" x=\"").append(f(L + plotW)).append("\" y=\"20\" text-anchor=\"end\">nodes ◂ ▸ USD per GPU-hour</text>");
        s.append("</svg>");
        return s.toString();
    }

    private static String line(List<PoolTick> ticks, double[] xs, double max, double plotH, String cls,
                               java.util.function.ToDoubleFunction<PoolTick> value) {
        StringBuilder out = new StringBuilder();
        StringBuilder seg = new StringBuilder();
        for (int k = 0; k < ticks.size(); k++) {
            double v = value.applyAsDouble(ticks.get(k));
            if (Double.isNaN(v)) {
                flush(out, seg, cls);
                continue;
            }
            double y = y(v, max, plotH);
            seg.append(f(xs[k])).append(',').append(f(y)).append(' ').append(f(next(xs, k))).append(',').append(f(y)).append(' ');
        }
        flush(out, seg, cls);
        return out.toString();
    }

    private static void flush(StringBuilder out, StringBuilder seg, String cls) {
        if (seg.length() > 0) {
            String points = seg.toString().trim();
            // a lone point still shows: a polyline of one point draws nothing
            if (points.indexOf(' ') < 0) {
                String[] xy = points.split(",");
                out.append("<circle class=\"dot dot-").append(cls).append("\" cx=\"").append(xy[0]).append("\" cy=\"").append(xy[1])
                        .append("\" r=\"2.5\"/>");
            } else {
                out.append("<polyline class=\"line line-").append(cls).append("\" points=\"").append(points).append("\"/>");
            }
            seg.setLength(0);
        }
    }

    /** Where tick {@code k}'s value ends: at the next tick, the last one's at itself. */
    private static double next(double[] xs, int k) {
        return k + 1 < xs.length ? xs[k + 1] : xs[k];
    }

    private static double y(double v, double max, double plotH) {
        return T + plotH - plotH * Math.min(v, max) / max;
    }

    private static double dollars(Money m) {
        return m == null ? 0 : m.micros() / 1_000_000.0;
    }

    private static String f(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
