package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ServiceAccountToken;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.provider.ProviderException;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@link TenantClusterClient} on the fabric8 client: one short-lived client per call, on one shared HTTP
 * client factory, connected with the cluster's endpoint, its CA and the platform's bearer token.
 * No fabric8 type leaves this class; its exceptions become {@link ProviderException}s whose messages
 * are the API server's status message, which never holds a token.
 */
public final class Fabric8TenantClusterClient implements TenantClusterClient, AutoCloseable {
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGER = "better-compute";

    private final Vertx vertx;
    private final HttpClient.Factory httpClients;
    private final int timeoutMillis;

    /** @param timeoutMillis connection and request timeout of each call */
    public Fabric8TenantClusterClient(int timeoutMillis) {
        // Our own Vert.x, shared by every call's client and closed with this adapter, so closing one
        // client never stops another's event loop.
        this.vertx = Vertx.vertx();
        this.httpClients = new Vertx5HttpClientFactory(vertx);
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void ensureServiceAccount(ClusterConnection cluster, String serviceAccount, String clusterRole) {
        call(cluster, "ensure service account " + serviceAccount, client -> {
            ensureCreated(() -> client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE)
                    .addToLabels(MANAGED_BY, MANAGER).endMetadata().build()).create());
            ensureCreated(() -> client.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder()
                    .withNewMetadata().withName(serviceAccount).withNamespace(NAMESPACE).addToLabels(MANAGED_BY, MANAGER).endMetadata()
                    .build()).create());
            ClusterRoleBinding wanted = new ClusterRoleBindingBuilder()
                    .withNewMetadata().withName(serviceAccount).addToLabels(MANAGED_BY, MANAGER).endMetadata()
                    .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(clusterRole).endRoleRef()
                    .addNewSubject().withKind("ServiceAccount").withName(serviceAccount).withNamespace(NAMESPACE).endSubject()
                    .build();
            ClusterRoleBinding existing = client.rbac().clusterRoleBindings().withName(serviceAccount).get();
            if (existing != null && !sameGrant(existing, wanted)) {
                // A binding's roleRef cannot change in place: replace the binding.
                client.rbac().clusterRoleBindings().withName(serviceAccount).delete();
                existing = null;
            }
            if (existing == null) {
                ensureCreated(() -> client.rbac().clusterRoleBindings().resource(wanted).create());
            }
            return null;
        });
    }

    @Override
    public ServiceAccountToken requestToken(ClusterConnection cluster, String serviceAccount, long expirationSeconds, String audience) {
        return call(cluster, "request a token for " + serviceAccount, client -> {
            TokenRequest request = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(expirationSeconds)
                    .withAudiences(audience == null ? List.of() : List.of(audience)).endSpec().build();
            TokenRequest answer = client.serviceAccounts().inNamespace(NAMESPACE).withName(serviceAccount).tokenRequest(request);
            if (answer == null || answer.getStatus() == null || answer.getStatus().getToken() == null
                    || answer.getStatus().getExpirationTimestamp() == null) {
                throw new ProviderException(ProviderException.Kind.INTERNAL, "The cluster answered the TokenRequest without a token or expiry.");
            }
            Instant expires;
            try {
                expires = Instant.parse(answer.getStatus().getExpirationTimestamp());
            } catch (DateTimeParseException e) {
                throw new ProviderException(ProviderException.Kind.INTERNAL, "The cluster answered the TokenRequest with an unreadable expiry.");
            }
            return new ServiceAccountToken(answer.getStatus().getToken(), expires);
        });
    }

    @Override
    public void close() {
        vertx.close();
    }

    private static boolean sameGrant(ClusterRoleBinding a, ClusterRoleBinding b) {
        return a.getRoleRef() != null && a.getRoleRef().getName().equals(b.getRoleRef().getName())
                && a.getRoleRef().getKind().equals(b.getRoleRef().getKind())
                && a.getSubjects() != null && a.getSubjects().size() == 1
                && a.getSubjects().get(0).getName().equals(serviceAccountOf(b))
                && NAMESPACE.equals(a.getSubjects().get(0).getNamespace());
    }

    private static String serviceAccountOf(ClusterRoleBinding b) {
        return b.getSubjects().get(0).getName();
    }

    /** Creates, and takes 409 (it exists, perhaps made by a concurrent call) as success. */
    private static void ensureCreated(Supplier<?> create) {
        try {
            create.get();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    private interface Work<T> {
        T run(KubernetesClient client);
    }

    private <T> T call(ClusterConnection cluster, String what, Work<T> work) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(cluster.endpointUrl())
                .withCaCertData(cluster.caCertificateBase64())
                .withOauthToken(cluster.platformBearerToken())
                .withConnectionTimeout(timeoutMillis)
                .withRequestTimeout(timeoutMillis)
                .withRequestRetryBackoffLimit(0)
                .build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(httpClients).build()) {
            return work.run(client);
        } catch (KubernetesClientException e) {
            throw translate(what, e);
        } catch (ProviderException e) {
            throw e;
        } catch (RuntimeException e) {
            // fabric8 wraps connection failures in its own or plain runtime exceptions; their messages may
            // quote the request, never its Authorization header.
            throw new ProviderException(ProviderException.Kind.UNAVAILABLE,
                    "The cluster's Kubernetes API could not be reached to " + what + ".");
        }
    }

    private static ProviderException translate(String what, KubernetesClientException e) {
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
}
