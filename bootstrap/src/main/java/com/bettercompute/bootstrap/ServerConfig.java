package com.bettercompute.bootstrap;

import java.nio.file.Path;

/**
 * How the server starts. {@code catalog} null: the built-in demo catalog, with a fresh demo token.
 * The provider settings are read and checked now; the reconciler that uses them drives the provider.
 */
public record ServerConfig(
        String host,
        int port,
        String db,
        Path catalog,
        String provider,
        String gkeEndpoint,
        int simOperationSeconds,
        int reconcileConvergingSeconds,
        int reconcileSettledSeconds) {

    public static ServerConfig defaults() {
        return new ServerConfig("127.0.0.1", 8080, "jdbc:h2:file:./data/better-compute", null, "simulator", null, 20, 30, 300);
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(host, p, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds, reconcileSettledSeconds);
    }

    public ServerConfig withDb(String url) {
        return new ServerConfig(host, port, url, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds, reconcileSettledSeconds);
    }

    public ServerConfig withCatalog(Path file) {
        return new ServerConfig(host, port, db, file, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds, reconcileSettledSeconds);
    }
}
