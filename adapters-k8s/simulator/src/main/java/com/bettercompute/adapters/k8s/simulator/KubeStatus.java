package com.bettercompute.adapters.k8s.simulator;

import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Kubernetes API's {@code Status} object, the body of every refusal (and of an eviction's success), written by
 * Jackson so a message with newlines or quotes stays one valid document.
 */
final class KubeStatus {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private KubeStatus() {
    }

    /** A Status of these fields, with the kind, apiVersion and empty metadata every Status carries. */
    static Map<String, Object> of(Map<String, Object> fields) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.put("metadata", Map.of());
        fields.forEach((k, v) -> {
            if (!"kind".equals(k) && !"apiVersion".equals(k) && !"metadata".equals(k)) {
                status.put(k, v);
            }
        });
        return status;
    }

    /** A refusal: {@code status: Failure} with its message, reason and HTTP code. */
    static Map<String, Object> failure(int code, String reason, String message) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("status", "Failure");
        fields.put("message", message);
        fields.put("reason", reason);
        fields.put("code", code);
        return of(fields);
    }

    /** A success without an object to return (an eviction accepted). */
    static Map<String, Object> success(int code) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("status", "Success");
        fields.put("code", code);
        return of(fields);
    }

    static String json(Map<String, Object> status) {
        return JSON.writeValueAsString(status);
    }
}
