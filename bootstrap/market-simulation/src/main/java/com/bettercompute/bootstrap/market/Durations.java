package com.bettercompute.bootstrap.market;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Scenario durations: {@code 0}, {@code 45s}, {@code 30m}, {@code 6h}, {@code 2d}, {@code 1d6h30m}. */
final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+)([dhms])");

    private Durations() {
    }

    static Duration parse(String text, String field) {
        if (text == null || text.isBlank()) {
            throw new ScenarioException(field + ": a duration is required (such as 90s, 30m, 6h, 2d)");
        }
        String t = text.trim();
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = PART.matcher(t);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "d" -> Duration.ofDays(n);
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
            });
            end = m.end();
        }
        if (end != t.length() || end == 0) {
            throw new ScenarioException(field + ": \"" + text + "\" is not a duration (use 90s, 30m, 6h, 2d or 1d6h)");
        }
        return total;
    }

    static String format(Duration d) {
        long s = d.getSeconds();
        if (s == 0) {
            return "0s";
        }
        StringBuilder b = new StringBuilder();
        if (s >= 86_400) {
            b.append(s / 86_400).append('d');
            s %= 86_400;
        }
        if (s >= 3600) {
            b.append(s / 3600).append('h');
            s %= 3600;
        }
        if (s >= 60) {
            b.append(s / 60).append('m');
            s %= 60;
        }
        if (s > 0) {
            b.append(s).append('s');
        }
        return b.toString();
    }
}
