package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.IssueCredentials;

import java.util.LinkedHashMap;
import java.util.Map;

/** The answer of {@code credentials}: {@code {kubeconfig, expiresAt, role}}. It holds a token: never log it. */
final class CredentialsJson {
    private CredentialsJson() {}

    static Map<String, Object> of(IssueCredentials.Credentials c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kubeconfig", c.kubeconfig());
        m.put("expiresAt", ClusterJson.time(c.expiresAt()));
        m.put("role", c.role().wire());
        return m;
    }
}
