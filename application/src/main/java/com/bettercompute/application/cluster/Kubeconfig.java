package com.bettercompute.application.cluster;

/**
 * Writes the one kubeconfig shape {@code credentials} answers: one cluster, one user with a bearer token,
 * one context, and {@code current-context}. Every value is a YAML double-quoted scalar, escaped as
 * JSON escapes a string (valid YAML), so no name or endpoint can break the document's structure.
 */
public final class Kubeconfig {
    private Kubeconfig() {}

    /**
     * @param name      the cluster's, user's and context's name
     * @param serverUrl the API server's URL
     * @param caBase64  the CA, base64 of PEM
     * @param token     the bearer token
     */
    static String write(String name, String serverUrl, String caBase64, String token) {
        return document(name, serverUrl, caBase64, "    token: " + quote(token) + "\n");
    }

    /**
     * The sign-in kubeconfig (the spec's "Connecting"): one cluster, one context and a user that runs the
     * credential plugin ({@code client.authentication.k8s.io/v1} exec). It holds no token, key or password:
     * the plugin signs the person in and hands kubectl the ID token.
     *
     * @param name        the cluster's, user's and context's name (the cluster's name in its organization)
     * @param serverUrl   the API server's URL
     * @param caBase64    the CA, base64 of PEM
     * @param command     the plugin's command
     * @param args        the plugin's arguments (the platform's URL and the cluster's audience)
     * @param installHint what kubectl prints when the plugin is missing
     */
    public static String withPlugin(String name, String serverUrl, String caBase64, String command, java.util.List<String> args,
                                    String installHint) {
        StringBuilder user = new StringBuilder()
                .append("    exec:\n")
                .append("      apiVersion: \"client.authentication.k8s.io/v1\"\n")
                .append("      command: ").append(quote(command)).append("\n")
                .append("      args:\n");
        for (String arg : args) {
            user.append("      - ").append(quote(arg)).append('\n');
        }
        user.append("      interactiveMode: \"IfAvailable\"\n")
                .append("      provideClusterInfo: false\n")
                .append("      installHint: ").append(quote(installHint)).append("\n");
        return document(name, serverUrl, caBase64, user.toString());
    }

    /** One cluster, one user whose {@code user:} holds {@code userLines}, one context, and {@code current-context}. */
    private static String document(String name, String serverUrl, String caBase64, String userLines) {
        String n = quote(name);
        return "apiVersion: v1\n"
                + "kind: Config\n"
                + "clusters:\n"
                + "- name: " + n + "\n"
                + "  cluster:\n"
                + "    server: " + quote(serverUrl) + "\n"
                + "    certificate-authority-data: " + quote(caBase64) + "\n"
                + "users:\n"
                + "- name: " + n + "\n"
                + "  user:\n"
                + userLines
                + "contexts:\n"
                + "- name: " + n + "\n"
                + "  context:\n"
                + "    cluster: " + n + "\n"
                + "    user: " + n + "\n"
                + "current-context: " + n + "\n";
    }

    static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    // Control characters, and everything outside printable ASCII, as \\uXXXX: YAML allows
                    // neither raw C0/C1 controls nor (in some readers) lone surrogates and BOMs.
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
