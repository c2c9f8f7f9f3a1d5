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
}
