package com.bettercompute.adapters.http;

import java.util.Map;

/**
 * What the server tells its operator beside the API, served by {@link ApiServer}: {@code /healthz} (the
 * process lives), {@code /readyz} ({@link #missing()}) and {@code /metrics} ({@link #scrape()}); and each
 * request as it is answered ({@link #arrived()}).
 */
public interface Operations {
    /**
     * What the server lacks to serve now, by the name of the thing checked (database, migrations,
     * provider, ...) with why; empty when it is ready. May take a moment (it asks the database and the
     * provider) but never long.
     */
    Map<String, String> missing();

    /** The metrics in the Prometheus text format (version 0.0.4). */
    String scrape();

    /** A request has arrived; the returned completion is called once, when it has been answered. */
    Completion arrived();

    /** The end of one request. */
    @FunctionalInterface
    interface Completion {
        /**
         * @param route  the route template that served it ({@code /api/compute/kubernetesClusters/get}), or
         *               {@code unmatched} when none did: never the raw path, which a client chooses
         * @param method the HTTP method
         * @param status the status answered
         */
        void answered(String route, String method, int status);
    }

    /** No operator endpoints' data: always ready, no metrics, nothing observed. */
    Operations NONE = new Operations() {
        @Override
        public Map<String, String> missing() {
            return Map.of();
        }

        @Override
        public String scrape() {
            return "";
        }

        @Override
        public Completion arrived() {
            return (route, method, status) -> { };
        }
    };
}
