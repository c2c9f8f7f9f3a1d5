package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ProviderException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * fabric8 clients for tenant clusters on one shared Vert.x (closed with this), and the translation of
 * fabric8's failures into {@link ProviderException}s whose messages are the API server's status message,
 * which never holds a token.
 *
 * <p><b>One client per cluster connection.</b> Every call and watch to a cluster shares one client, kept by the
 * cluster's endpoint, CA and token together ({@link ClusterConnection}'s equality), so its connections and TLS
 * sessions are reused from call to call, and a rotated token gets a client of its own. A client left unused for
 * {@link #IDLE} is dropped; it is closed once no call or watch uses it any longer ({@link Lease}: counted, so a
 * client dropped during a call or under a running watch is closed only when they end). Everything is closed with
 * the adapter.
 */
final class ClusterApis implements AutoCloseable {
    /** How long {@link #close()} waits for the Vert.x to end. */
    static final long CLOSE_WAIT_SECONDS = 10;
    /** How long a cluster's client is kept without a call or a watch. */
    static final Duration IDLE = Duration.ofMinutes(5);
    private final Vertx vertx;
    private final HttpClient.Factory httpClients;
    private final int timeoutMillis;
    private final Cache<ClusterConnection, Shared> clients;
    /** Every client not closed yet, in the cache or not (dropped while in use), for {@link #close()}. */
    private final Set<Shared> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    ClusterApis(int timeoutMillis) {
        this(timeoutMillis, Ticker.systemTicker(), IDLE);
    }

    /** @param ticker the time idle clients are dropped by */
    ClusterApis(int timeoutMillis, Ticker ticker, Duration idle) {
        // Our own Vert.x, shared by every client and closed with the adapter, so closing one client never
        // stops another's event loop.
        this.vertx = Vertx.vertx();
        this.httpClients = new Vertx5HttpClientFactory(vertx);
        this.timeoutMillis = timeoutMillis;
        // the removal runs where the cache does its upkeep: closing a client only starts its Vert.x clients' close
        this.clients = Caffeine.newBuilder().ticker(ticker).expireAfterAccess(idle).scheduler(Scheduler.systemScheduler())
                .executor(Runnable::run).removalListener((ClusterConnection cluster, Shared shared, RemovalCause cause) -> {
                    if (shared != null) {
                        shared.retire();
                    }
                }).build();
    }

    interface Work<T> {
        T run(KubernetesClient client);
    }

    /**
     * One cluster's client and how many calls and watches use it now: closed once it has left the cache
     * ({@link #retire}) and its last user has given it back.
     */
    private final class Shared {
        final KubernetesClient client;
        private int users;
        private boolean retired;

        Shared(KubernetesClient client) {
            this.client = client;
            open.add(this);
        }

        synchronized boolean take() {
            if (retired) {
                return false;
            }
            users++;
            return true;
        }

        synchronized void give() {
            users--;
            closeWhenUnused();
        }

        synchronized void retire() {
            retired = true;
            closeWhenUnused();
        }

        private void closeWhenUnused() {
            if (retired && users == 0 && open.remove(this)) {
                client.close();
            }
        }

        /** Closes it whoever still uses it: the adapter is closing. */
        synchronized void closeNow() {
            retired = true;
            if (open.remove(this)) {
                client.close();
            }
        }
    }

    /** The use of a cluster's shared client by one call or one watch; closing it gives the client back (once). */
    final class Lease implements AutoCloseable {
        private final Shared shared;
        private final AtomicBoolean given = new AtomicBoolean();

        private Lease(Shared shared) {
            this.shared = shared;
        }

        KubernetesClient client() {
            return shared.client;
        }

        @Override
        public void close() {
            if (given.compareAndSet(false, true)) {
                shared.give();
            }
        }
    }

    /**
     * {@code cluster}'s shared client, for as long as the lease is not closed.
     *
     * @throws IllegalStateException when the adapter is closed
     */
    Lease lease(ClusterConnection cluster) {
        while (true) {
            if (closed) {
                throw new IllegalStateException("The cluster client is closed.");
            }
            Shared shared = clients.get(cluster, c -> new Shared(open(c)));
            if (shared.take()) {
                return new Lease(shared);
            }
            // dropped between the look-up and the take: the cache no longer holds it, the next look-up makes another
        }
    }

    /** The clients kept now, one per cluster connection (those dropped and still in use are not counted). */
    long kept() {
        clients.cleanUp();
        return clients.estimatedSize();
    }

    private KubernetesClient open(ClusterConnection cluster) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(cluster.endpointUrl())
                .withCaCertData(cluster.caCertificateBase64())
                .withOauthToken(cluster.platformBearerToken())
                .withConnectionTimeout(timeoutMillis)
                .withRequestTimeout(timeoutMillis)
                .withRequestRetryBackoffLimit(0)
                .build();
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(httpClients).build();
    }

    /** Runs {@code work} on the cluster's shared client, translating its failures. */
    <T> T call(ClusterConnection cluster, String what, Work<T> work) {
        try (Lease lease = lease(cluster)) {
            return work.run(lease.client());
        } catch (RuntimeException e) {
            throw translate(what, e);
        }
    }

    /**
     * A watch on the cluster's shared client, which it holds until it closes; {@code open} starts it on the lease
     * (given back if it fails).
     */
    <W> W watch(ClusterConnection cluster, String what, Function<Lease, W> open) {
        Lease lease;
        try {
            lease = lease(cluster);
        } catch (RuntimeException e) {
            throw translate(what, e);
        }
        try {
            return open.apply(lease);
        } catch (RuntimeException e) {
            lease.close();
            throw translate(what, e);
        }
    }

    static ProviderException translate(String what, RuntimeException failure) {
        if (failure instanceof ProviderException e) {
            return e;
        }
        if (!(failure instanceof KubernetesClientException e)) {
            // fabric8 wraps connection failures in its own or plain runtime exceptions; their messages may
            // quote the request, never its Authorization header.
            return new ProviderException(ProviderException.Kind.UNAVAILABLE,
                    "The cluster's Kubernetes API could not be reached to " + what + ".");
        }
        int code = e.getCode();
        String reason = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : "HTTP " + code;
        if (code < 100) {
            // No HTTP answer at all: fabric8 reports a connection failure without a status code.
            return new ProviderException(ProviderException.Kind.UNAVAILABLE, "The cluster's Kubernetes API could not be reached to " + what + ".");
        }
        ProviderException.Kind kind = switch (code) {
            case 401, 403 -> ProviderException.Kind.PERMISSION_DENIED;
            case 404 -> ProviderException.Kind.NOT_FOUND;
            case 409 -> ProviderException.Kind.ALREADY_EXISTS;
            case 400, 422 -> ProviderException.Kind.INVALID;
            case 429, 500, 502, 503, 504 -> ProviderException.Kind.UNAVAILABLE;
            default -> ProviderException.Kind.INTERNAL;
        };
        return new ProviderException(kind, "The cluster's Kubernetes API refused to " + what + ": " + reason);
    }

    /** Creates, and takes 409 (it exists, perhaps made by a concurrent call) as success. */
    static void ensureCreated(Supplier<?> create) {
        try {
            create.get();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        clients.invalidateAll();
        List.copyOf(open).forEach(Shared::closeNow);
        // waited for, so the server's next steps (the provider, the database) come after this Vert.x has ended
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // closed as far as it could be: nothing of ours is left on it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
