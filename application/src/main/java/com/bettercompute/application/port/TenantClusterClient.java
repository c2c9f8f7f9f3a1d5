package com.bettercompute.application.port;

/**
 * Operations inside a tenant's Kubernetes cluster, made as the platform (see
 * {@link ClusterConnection#platformBearerToken()}).
 *
 * <p>Failures are {@link com.bettercompute.application.port.ProviderException}s:
 * {@code UNAVAILABLE} when the API cannot be reached or answers with a transient error,
 * {@code PERMISSION_DENIED} when it refuses the platform's credential, {@code NOT_FOUND} when what
 * is named is missing, {@code INTERNAL} otherwise. No library type travels with them, and no message
 * carries a token.
 */
public interface TenantClusterClient {

    /** The namespace of ours in every tenant cluster, where the platform keeps its service accounts. */
    String NAMESPACE = "better-compute-system";

    /**
     * Makes sure the service account {@code serviceAccount} exists in {@link #NAMESPACE} (creating the
     * namespace if needed) and that a ClusterRoleBinding of the same name binds it to the ClusterRole
     * {@code clusterRole}. Idempotent: what exists already is kept; a binding of that name to another
     * role is replaced (a binding's role cannot be changed in place). Concurrent calls for the same
     * account both succeed.
     */
    void ensureServiceAccount(ClusterConnection cluster, String serviceAccount, String clusterRole);

    /**
     * Asks the cluster for a token of the service account by TokenRequest. Nothing is stored; every
     * call mints a new token.
     *
     * @param expirationSeconds how long the token should live; the cluster may answer less
     * @param audience          the audience to ask for; null: the API server's own, which is what a
     *                          kubeconfig needs
     * @return the token and the expiry the cluster answered
     */
    ServiceAccountToken requestToken(ClusterConnection cluster, String serviceAccount, long expirationSeconds, String audience);

    /** The ClusterRoleBindings of the sign-in groups: {@code nc-oidc-view}, {@code nc-oidc-edit}, {@code nc-oidc-admin}. */
    java.util.Map<String, String> SIGN_IN_GROUP_ROLES = java.util.Map.of("nc:view", "view", "nc:edit", "edit", "nc:admin", "cluster-admin");

    /**
     * Makes sure the ClusterRoleBindings {@code nc-oidc-view}, {@code nc-oidc-edit} and {@code nc-oidc-admin}
     * bind the Groups {@code nc:view}, {@code nc:edit} and {@code nc:admin} to the ClusterRoles {@code view},
     * {@code edit} and {@code cluster-admin}: a person signed in with an ID token gets the role its
     * {@code groups} claim names, with no binding per person. Idempotent, as {@link #ensureServiceAccount}.
     */
    void ensureSignInGroups(ClusterConnection cluster);

    /** The prefix of a signed-in person's user name in a cluster: {@code nc:} and the ID token's {@code sub}. */
    String SIGN_IN_USER_PREFIX = "nc:";

    /**
     * The platform as the OpenID Connect provider a cluster trusts for people signed in with {@code kubectl}: its issuer
     * (the platform's public base URL, the tokens' {@code iss}) and the client id its ID tokens for this cluster carry as
     * {@code aud}. The user is {@link #SIGN_IN_USER_PREFIX} and {@code sub}, the groups the {@code groups} claim.
     */
    record IdTokenTrust(String issuer, String clientId) {
        public IdTokenTrust {
            if (issuer == null || issuer.isBlank() || clientId == null || clientId.isBlank()) {
                throw new IllegalArgumentException("an ID token trust names an issuer and a client id");
            }
        }
    }

    /**
     * Makes the cluster's Identity Service for GKE configuration (the {@code ClientConfig} {@code default} in
     * {@code kube-public}) trust {@code trust}'s ID tokens: its authentication entry of the platform's name set to it,
     * every other entry and every other field (those GKE fills in) left as they are; the object created when Identity
     * Service has not written it yet. Writes nothing when it holds already. Idempotent.
     *
     * @throws ProviderException {@code FAILED_PRECONDITION} when the cluster does not serve the {@code ClientConfig}
     *                           kind (Identity Service is not enabled on it, as on an Autopilot cluster); as the class
     *                           says otherwise
     */
    void trustIdTokens(ClusterConnection cluster, IdTokenTrust trust);
}
