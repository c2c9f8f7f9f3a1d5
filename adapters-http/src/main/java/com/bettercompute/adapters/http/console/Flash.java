package com.bettercompute.adapters.http.console;

import java.util.Map;

/** The line a page shows after a form sent the browser to it ({@code ?done=<what>&name=<name>}). */
final class Flash {
    private static final Map<String, String> MESSAGES = Map.of(
            "created", "Cluster %s is being created.",
            "deleted", "Cluster %s is being deleted.",
            "pool-added", "Node pool %s is being added.",
            "pool-resized", "Node pool %s is being resized.",
            "pool-deleted", "Node pool %s is being deleted.",
            "limit-set", "The limit price is now %s per GPU-hour.",
            "limit-withdrawn", "The limit price is withdrawn: the cluster's jobs bid zero.",
            "volume-deleting", "Volume %s is being deleted with every file on it; its billing has stopped.");

    private Flash() {}

    static String message(String done, String name) {
        String m = done == null ? null : MESSAGES.get(done);
        return m == null ? null : String.format(m, name == null ? "" : name);
    }

    static String query(String done, String name) {
        return "?done=" + done + "&name=" + java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8);
    }
}
