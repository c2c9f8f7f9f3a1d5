package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ProviderException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * fabric8 clients for tenant clusters on one shared Vert.x (closed with this), and the translation of
 * fabric8's failures into {@link ProviderException}s whose messages are the API server's status message,
 * which never holds a token.
 */
final class ClusterApis implements AutoCloseable {
    /** How long {@link #close()} waits for the Vert.x to end. */
    static final long CLOSE_WAIT_SECONDS = 10;
    private final Vertx vertx;
    private final HttpClient.Factory httpClients;
    private final int timeoutMillis;

    ClusterApis(int timeoutMillis) {
        // Our own Vert.x, shared by every client and closed with the adapter, so closing one client never
        // stops another's event loop.
        this.vertx = Vertx.vertx();
        this.httpClients = new Vertx5HttpClientFactory(vertx);
        this.timeoutMillis = timeoutMillis;
    }

    interface Work<T> {
        T run(KubernetesClient client);
    }

    /** A client for {@code cluster}; the caller closes it. */
    KubernetesClient open(ClusterConnection cluster) {
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

    /** Runs {@code work} on a short-lived client, translating its failures. */
    <T> T call(ClusterConnection cluster, String what, Work<T> work) {
        try (KubernetesClient client = open(cluster)) {
            return work.run(client);
        } catch (RuntimeException e) {
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
