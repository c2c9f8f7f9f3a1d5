package com.bettercompute.bootstrap.e2e;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/** A Prometheus text scrape, read the way a test needs: a family's samples by their labels. */
record Scrape(String text) {
    /** The samples of a sample name (e.g. {@code bc_http_requests_seconds_count}) that carry all these labels. */
    List<String> samples(String name, Map<String, String> labels) {
        return text.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .filter(l -> labels.entrySet().stream().allMatch(e -> l.contains(e.getKey() + "=\"" + e.getValue() + "\"")))
                .toList();
    }

    /** The sum of the values of those samples; empty when there is none. */
    OptionalDouble sum(String name, Map<String, String> labels) {
        List<String> samples = samples(name, labels);
        if (samples.isEmpty()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(samples.stream().mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum());
    }
}
