package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.Operations;
import com.bettercompute.domain.catalog.Catalog;

import java.time.Clock;
import java.util.Map;

/**
 * The operator's view: {@code /readyz} following the database and the provider, and {@code /metrics} with the
 * database's pool and the reconciler's backlog sampled.
 *
 * @param readiness  what {@code /readyz} reports; told first when the server stops
 * @param operations the two routes' answers, as the API serves them
 */
record OperationsModule(Readiness readiness, Operations operations) {

    static OperationsModule start(DatabaseModule data, ProviderModule provider, Catalog catalog, Metrics metrics, Clock clock,
                                  Closer closer) {
        Readiness readiness = new Readiness();
        closer.add("operations", () -> {
            metrics.stopSampling();
            readiness.close();
        });
        metrics.database(data.db(), clock);
        readiness.check("database", () -> data.db().readinessProblem((int) Readiness.TIMEOUT.toSeconds()));
        provider.probe(catalog, metrics).ifPresent(probe -> readiness.check("provider", probe));
        return new OperationsModule(readiness, new Operations() {
            @Override
            public Map<String, String> missing() {
                return readiness.missing();
            }

            @Override
            public String scrape() {
                return metrics.scrape();
            }

            @Override
            public Completion arrived() {
                return metrics.arrived();
            }
        });
    }
}
