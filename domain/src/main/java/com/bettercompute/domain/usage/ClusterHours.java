package com.bettercompute.domain.usage;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster-hours a cluster owes: one per started hour from the moment the provider first accepted
 * it until it is deleted (or until now). Hours are counted from the acceptance, not the clock's hours,
 * so a cluster that lives 61 minutes bills 2.
 */
public final class ClusterHours {
    public static final Duration HOUR = Duration.ofHours(1);

    private ClusterHours() {}

    /**
     * The starts of the hours begun in {@code [acceptedAt, end)} that come after {@code lastRecorded}
     * (null: none recorded yet), oldest first, at most {@code max}.
     */
    public static List<Instant> due(Instant acceptedAt, Instant end, Instant lastRecorded, int max) {
        List<Instant> hours = new ArrayList<>();
        Instant start = lastRecorded == null ? acceptedAt : lastRecorded.plus(HOUR);
        while (start.isBefore(end) && hours.size() < max) {
            hours.add(start);
            start = start.plus(HOUR);
        }
        return hours;
    }
}
