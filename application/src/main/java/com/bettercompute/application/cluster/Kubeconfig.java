package com.bettercompute.application.cluster;

/**
 * Writes the one kubeconfig shape {@code credentials} answers: one cluster, one user with a bearer token,
 * one context, and {@code current-context}. Every value is a YAML double-quoted scalar, escaped as
 * JSON escapes a string (valid YAML), so no name or endpoint can break the document's structure.
 */
final class Kubeconfig {
    private Kubeconfig() {}

    /**
     * @param name      the cluster's, user's and context's name
     * @param serverUrl the API server's URL
     * @param caBase64  the CA, base64 of PEM
     * @param token     the bearer token
     */
    static String write(String name, String serverUrl, String caBase64, String token) {
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
                + "    token: " + quote(token) + "\n"
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
