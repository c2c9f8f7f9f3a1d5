package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;

import java.nio.file.Path;

/**
 * How the server starts. {@code catalog} null: the built-in demo catalog, with a fresh demo token.
 * The provider settings are read and checked now; the reconciler that uses them drives the provider.
 * {@code dataDir} is where the server keeps local state besides its database: the embedded GKE
 * simulator's world under {@code gke-simulator/}, and the key-encryption key under {@code secrets/}; null
 * keeps those in memory (tests, load runs). {@code publicUrl} is the platform's base URL as its users
 * and clusters reach it, the ID tokens' issuer; null: {@code http://<host>:<port>} of the API.
 * {@code filestoreEndpoint} is the Filestore API the shared volumes are made at, with {@code --gke-endpoint} or to
 * override Google's; null: the embedded simulator's, or Google's with {@code --provider gke}.
 * {@code keyEncryptionKey} seals the ID token signing keys in the database; every replica on one database needs
 * the same one. Null: the one kept under {@code dataDir} ({@code secrets/key-encryption-key}, made at the first
 * start), and without a data directory one the process makes and holds alone (tests, load runs).
 * {@code inClusterConcurrency} is how many of its clusters this replica's in-cluster market works at once.
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
        int reconcileSettledSeconds,
        String replicaId,
        boolean reconcile,
        int credentialTtlSeconds,
        Path dataDir,
        RequestLimits.Settings requestLimits,
        int marketTickSeconds,
        String publicUrl,
        String filestoreEndpoint,
        KeyEncryptionKey keyEncryptionKey,
        int inClusterConcurrency) {

    public static ServerConfig defaults() {
        return new ServerConfig("127.0.0.1", 8080, com.bettercompute.adapters.persistence.Database.DEFAULT_URL, null, "simulator", null, 20, 30, 300, null, true, 3600, null, RequestLimits.Settings.defaults(), 5, null, null, null,
                com.bettercompute.application.incluster.CarryMarketIntoClusters.DEFAULT_CONCURRENCY);
    }

    /**
     * The listen host as a URL names it, in every address the server gives out (its API, its issuer, its admission
     * webhooks): a wildcard address is reached at this machine's loopback, an IPv6 address is put in brackets.
     */
    public String urlHost() {
        String h = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
        return h.contains(":") ? "[" + h + "]" : h;
    }

    /** Who holds reconcile leases: the option, else host and port, so a restarted server takes its own leases back at once. */
    public String replicaId() {
        if (replicaId != null) {
            return replicaId;
        }
        String hostName;
        try {
            hostName = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            hostName = "localhost";
        }
        // With any free port (0) the port says nothing: a random suffix keeps replicas apart.
        return hostName + ":" + (port == 0 ? java.util.UUID.randomUUID().toString() : Integer.toString(port));
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(host, p, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds, reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    public ServerConfig withDb(String url) {
        return new ServerConfig(host, port, url, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds, reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    public ServerConfig withProvider(String p, String endpoint, int operationSeconds, int converging, int settled) {
        return new ServerConfig(host, port, db, catalog, p, endpoint, operationSeconds, converging, settled, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** Without the reconciler: an API-only replica (clusters stay as the API left them). */
    public ServerConfig withoutReconciler() {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, false, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    public ServerConfig withCatalog(Path file) {
        return new ServerConfig(host, port, db, file, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds, reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** How long a kubeconfig's token lives when {@code credentials} is not told (the module's {@code credentialTtlSeconds}). */
    public ServerConfig withCredentialTtlSeconds(int seconds) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, seconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** Each principal's share of the API and the deadline of a request body. */
    public ServerConfig withRequestLimits(RequestLimits.Settings limits) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, limits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** How often the market clears, in seconds ({@code --market-tick-seconds}). */
    public ServerConfig withMarketTickSeconds(int seconds) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, seconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** With the embedded simulator's state kept under {@code dir} (null: in memory). */
    public ServerConfig withDataDir(Path dir) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** Where the embedded GKE simulator keeps its world, or null to keep it in memory. */
    public Path simulatorStateDir() {
        return dataDir == null ? null : dataDir.resolve("gke-simulator");
    }

    /** The platform's public base URL (the OpenID Connect issuer); null: the API's own address. */
    public ServerConfig withPublicUrl(String url) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, url, filestoreEndpoint, keyEncryptionKey, inClusterConcurrency);
    }

    /** The Filestore API (and its Cloud Monitoring read) the shared volumes are made at ({@code --filestore-endpoint}). */
    public ServerConfig withFilestoreEndpoint(String url) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, url, keyEncryptionKey, inClusterConcurrency);
    }

    /** With the key that seals the ID token signing keys in the database (null: the data directory's, or none). */
    public ServerConfig withKeyEncryptionKey(KeyEncryptionKey key) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl, filestoreEndpoint, key, inClusterConcurrency);
    }

    /** How many clusters the in-cluster market works at once ({@code --in-cluster-concurrency}). */
    public ServerConfig withInClusterConcurrency(int n) {
        return new ServerConfig(host, port, db, catalog, provider, gkeEndpoint, simOperationSeconds, reconcileConvergingSeconds,
                reconcileSettledSeconds, replicaId, reconcile, credentialTtlSeconds, dataDir, requestLimits, marketTickSeconds, publicUrl,
                filestoreEndpoint, keyEncryptionKey, n);
    }
}
