package com.bettercompute.domain.market;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Max cluster size: a cluster's queued requests file with the market in order (priority class, then
 * oldest first) while the GPUs of its running and filed requests plus the next stay within the cap.
 * The order is strict: the first that does not fit stops the others (Kueue's StrictFIFO), except a
 * request larger than the cap on its own, which never files and blocks nobody.
 */
public final class ClusterQuotaPolicy {
    private ClusterQuotaPolicy() {
    }

    /** A queued request as the policy sees it. */
    public record Queued(String id, PriorityClass priority, long sequence, long gpus) {
    }

    public static final Comparator<Queued> ORDER =
            Comparator.comparing(Queued::priority).thenComparingLong(Queued::sequence);

    /** The ids to file now, in filing order. */
    public static List<String> toFile(List<Queued> queue, long usedGpus, long maxGpus) {
        List<Queued> sorted = new ArrayList<>(queue);
        sorted.sort(ORDER);
        List<String> out = new ArrayList<>();
        long used = usedGpus;
        for (Queued q : sorted) {
            if (q.gpus() > maxGpus) {
                continue;
            }
            if (used + q.gpus() > maxGpus) {
                break;
            }
            used += q.gpus();
            out.add(q.id());
        }
        return out;
    }
}
