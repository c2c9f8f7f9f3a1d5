package com.bettercompute.application.cluster;

import java.util.List;

/**
 * The one kubeconfig shape the platform hands out: one cluster, one user, one context of the same {@code name},
 * and that context current. A value, not a document: the HTTP adapter writes it as YAML with a YAML library, so
 * no name, URL or token can break the document's structure. {@link #toString()} shows no token.
 *
 * @param name     the cluster's, user's and context's name
 * @param server   the API server's URL
 * @param caBase64 the CA, base64 of PEM
 * @param user     how kubectl authenticates: a bearer token, or the sign-in plugin
 */
public record Kubeconfig(String name, String server, String caBase64, User user) {

    /** How kubectl authenticates to the cluster. */
    public sealed interface User permits BearerToken, Plugin {}

    /** A bearer token (a secret: {@link #toString()} never shows it). */
    public record BearerToken(String token) implements User {
        @Override
        public String toString() {
            return "BearerToken[<redacted>]";
        }
    }

    /**
     * The credential plugin ({@code client.authentication.k8s.io/v1} exec) that signs the person in and hands kubectl
     * the ID token: no token, key or password in the kubeconfig.
     *
     * @param command     the plugin's command
     * @param args        its arguments (the platform's URL and the cluster's audience)
     * @param installHint what kubectl prints when the plugin is missing
     */
    public record Plugin(String command, List<String> args, String installHint) implements User {
        public Plugin {
            args = List.copyOf(args);
        }
    }

    /** The kubeconfig {@code credentials} answers: a service account's bearer token. */
    static Kubeconfig withToken(String name, String server, String caBase64, String token) {
        return new Kubeconfig(name, server, caBase64, new BearerToken(token));
    }

    /** The sign-in kubeconfig (the spec's "Connecting"): the plugin signs the person in. */
    public static Kubeconfig withPlugin(String name, String server, String caBase64, String command, List<String> args,
                                        String installHint) {
        return new Kubeconfig(name, server, caBase64, new Plugin(command, args, installHint));
    }
}
