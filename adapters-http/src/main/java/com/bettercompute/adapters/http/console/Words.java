package com.bettercompute.adapters.http.console;

import com.bettercompute.domain.market.Money;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** The market's reasons and other wire words as a person reads them on the console's pages. */
final class Words {
    private Words() {}

    /** What the reasons of docs/api/README.md's table mean for the job; the wire word is shown beside it. */
    static final Map<String, String> REASONS = Map.ofEntries(
            Map.entry("Pending", "Waiting for the market's first read"),
            Map.entry("BidTooLow", "The limit price is below the pool's reserve"),
            Map.entry("BalanceTooLow", "The balance does not cover two hours at the limit price"),
            Map.entry("Outbid", "Outbid: higher limits took the supply"),
            Map.entry("PendingSupply", "Waiting for nodes to free up"),
            Map.entry("InsufficientQuota", "Waiting in your queue: the max cluster size is reached, no request filed yet"),
            Map.entry("WaitingForBaseLoadBlock", "Waiting for GPUs of the base load block"),
            Map.entry("Provisioning", "Granted: its nodes are joining"),
            Map.entry("Provisioned", "Running on its granted nodes"),
            Map.entry("MarketPreemption", "Reclaimed with notice: its nodes drain by the deadline"),
            Map.entry("MarketRevoked", "Its nodes were reclaimed; the job requeued as the next attempt"));

    static final String CAPACITY_UNAVAILABLE = "capacity unavailable";

    static String reason(String wire, boolean capacityUnavailable) {
        if (capacityUnavailable) {
            return "Capacity unavailable: the site has no supply of this class";
        }
        return REASONS.getOrDefault(wire, wire);
    }

    static String time(Instant t) {
        return t == null ? null : t.toString();
    }

    static String usd(Money m) {
        return m == null ? null : m.toString();
    }

    /** {@code 1h 02m}, {@code 4m 05s}, {@code 12s}. */
    static String duration(Duration d) {
        long s = Math.max(0, d.getSeconds());
        if (s >= 3600) {
            return String.format(java.util.Locale.ROOT, "%dh %02dm", s / 3600, s % 3600 / 60);
        }
        if (s >= 60) {
            return String.format(java.util.Locale.ROOT, "%dm %02ds", s / 60, s % 60);
        }
        return s + "s";
    }

    /** A domain event's wire type in words: {@code kubernetes.cluster.ready} → "Cluster ready". */
    static String event(String type) {
        String t = type.startsWith("kubernetes.") ? type.substring("kubernetes.".length()) : type;
        String words = t.replace("nodePool", "node pool").replace("nodepool", "node pool").replace('.', ' ').replace('_', ' ')
                .replace('-', ' ');
        return words.isEmpty() ? type : Character.toUpperCase(words.charAt(0)) + words.substring(1);
    }
}
