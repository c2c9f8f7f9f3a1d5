package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ServiceAccountToken;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.ProviderException;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * {@link TenantClusterClient} on the fabric8 client: one short-lived client per call, on one shared HTTP
 * client factory, connected with the cluster's endpoint, its CA and the platform's bearer token.
 * No fabric8 type leaves this class; its exceptions become {@link ProviderException}s whose messages
 * are the API server's status message, which never holds a token.
 */
public final class Fabric8TenantClusterClient implements TenantClusterClient, AutoCloseable {
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGER = "better-compute";

    private final ClusterApis apis;

    /** @param timeoutMillis connection and request timeout of each call */
    public Fabric8TenantClusterClient(int timeoutMillis) {
        this.apis = new ClusterApis(timeoutMillis);
    }

    @Override
    public void ensureServiceAccount(ClusterConnection cluster, String serviceAccount, String clusterRole) {
        apis.call(cluster, "ensure service account " + serviceAccount, client -> {
            ClusterApis.ensureCreated(() -> client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE)
                    .addToLabels(MANAGED_BY, MANAGER).endMetadata().build()).create());
            ClusterApis.ensureCreated(() -> client.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder()
                    .withNewMetadata().withName(serviceAccount).withNamespace(NAMESPACE).addToLabels(MANAGED_BY, MANAGER).endMetadata()
                    .build()).create());
            ClusterRoleBinding wanted = new ClusterRoleBindingBuilder()
                    .withNewMetadata().withName(serviceAccount).addToLabels(MANAGED_BY, MANAGER).endMetadata()
                    .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(clusterRole).endRoleRef()
                    .addNewSubject().withKind("ServiceAccount").withName(serviceAccount).withNamespace(NAMESPACE).endSubject()
                    .build();
            ensureBinding(client, wanted, Fabric8TenantClusterClient::sameGrant);
            return null;
        });
    }

    @Override
    public void ensureSignInGroups(ClusterConnection cluster) {
        apis.call(cluster, "ensure the sign-in group bindings", client -> {
            for (var group : new java.util.TreeMap<>(SIGN_IN_GROUP_ROLES).entrySet()) {
                String name = "nc-oidc-" + group.getKey().substring("nc:".length());
                ClusterRoleBinding wanted = new ClusterRoleBindingBuilder()
                        .withNewMetadata().withName(name).addToLabels(MANAGED_BY, MANAGER).endMetadata()
                        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(group.getValue()).endRoleRef()
                        .addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("Group").withName(group.getKey()).endSubject()
                        .build();
                ensureBinding(client, wanted, Fabric8TenantClusterClient::sameGroupGrant);
            }
            return null;
        });
    }

    /** Creates the binding, or replaces one of its name that grants otherwise (a binding's roleRef cannot change in place). */
    private static void ensureBinding(io.fabric8.kubernetes.client.KubernetesClient client, ClusterRoleBinding wanted,
                                      java.util.function.BiPredicate<ClusterRoleBinding, ClusterRoleBinding> same) {
        String name = wanted.getMetadata().getName();
        ClusterRoleBinding existing = client.rbac().clusterRoleBindings().withName(name).get();
        if (existing != null && !same.test(existing, wanted)) {
            client.rbac().clusterRoleBindings().withName(name).delete();
            existing = null;
        }
        if (existing == null) {
            ClusterApis.ensureCreated(() -> client.rbac().clusterRoleBindings().resource(wanted).create());
        }
    }

    private static boolean sameGroupGrant(ClusterRoleBinding a, ClusterRoleBinding b) {
        return a.getRoleRef() != null && b.getRoleRef().getName().equals(a.getRoleRef().getName())
                && "ClusterRole".equals(a.getRoleRef().getKind())
                && a.getSubjects() != null && a.getSubjects().size() == 1
                && "Group".equals(a.getSubjects().get(0).getKind())
                && b.getSubjects().get(0).getName().equals(a.getSubjects().get(0).getName());
    }

    /** Identity Service for GKE's configuration kind, where a cluster's trusted OpenID Connect issuers are named. */
    static final ResourceDefinitionContext CLIENT_CONFIGS = new ResourceDefinitionContext.Builder()
            .withGroup("authentication.gke.io").withVersion("v2alpha1").withKind("ClientConfig").withPlural("clientconfigs")
            .withNamespaced(true).build();
    /** The name of the platform's entry among the ClientConfig's authentication methods. */
    static final String TRUST_ENTRY = "better-compute";

    @Override
    public void trustIdTokens(ClusterConnection cluster, IdTokenTrust trust) {
        apis.call(cluster, "trust the platform's ID tokens", client -> {
            // null when the group version is not served (404); any other failure is the call's own, said as such
            APIResourceList served = client.getApiResources(CLIENT_CONFIGS.getGroup() + "/" + CLIENT_CONFIGS.getVersion());
            if (served == null || served.getResources() == null
                    || served.getResources().stream().noneMatch(r -> CLIENT_CONFIGS.getPlural().equals(r.getName()))) {
                throw new ProviderException(ProviderException.Kind.FAILED_PRECONDITION, "The cluster does not serve ClientConfig "
                        + "(authentication.gke.io/v2alpha1): Identity Service for GKE is not enabled on it, so it cannot trust the "
                        + "platform's sign-in (GKE offers it on Standard clusters only).");
            }
            var configs = client.genericKubernetesResources(CLIENT_CONFIGS).inNamespace("kube-public");
            GenericKubernetesResource config = configs.withName("default").get();
            if (config == null) {
                config = new GenericKubernetesResource();
                config.setApiVersion(CLIENT_CONFIGS.getGroup() + "/" + CLIENT_CONFIGS.getVersion());
                config.setKind(CLIENT_CONFIGS.getKind());
                config.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("default")
                        .withNamespace("kube-public").build());
            }
            GenericKubernetesResource wanted = config;
            if (ClientConfigs.trust(wanted, TRUST_ENTRY, trust)) {
                if (wanted.getMetadata().getResourceVersion() == null) {
                    ClusterApis.ensureCreated(() -> configs.resource(wanted).create());
                } else {
                    // a replace with the resourceVersion read: Identity Service writing beside it fails this with 409, and
                    // the next approval writes again
                    configs.resource(wanted).update();
                }
            }
            return null;
        });
    }

    @Override
    public ServiceAccountToken requestToken(ClusterConnection cluster, String serviceAccount, long expirationSeconds, String audience) {
        return apis.call(cluster, "request a token for " + serviceAccount, client -> {
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
        apis.close();
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
}
