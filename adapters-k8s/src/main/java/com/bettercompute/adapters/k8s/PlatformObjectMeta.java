package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The metadata of an object the platform owns in a tenant cluster: its name, its namespace (null for a cluster-wide
 * object) and the {@value MarketClusterClient#OWNED_BY} label that the keep passes and the admission webhooks read.
 */
final class PlatformObjectMeta {
    private PlatformObjectMeta() {
    }

    static ObjectMeta owned(String name, String namespace) {
        return new ObjectMetaBuilder().withName(name).withNamespace(namespace).withLabels(ownedLabels(Map.of())).build();
    }

    /** The label alone: what a webhook's object selector matches. */
    static final Map<String, String> OWNED = Map.of(MarketClusterClient.OWNED_BY, "platform");

    /** The platform's ownership label, then {@code labels}. */
    static Map<String, String> ownedLabels(Map<String, String> labels) {
        Map<String, String> out = new LinkedHashMap<>(OWNED);
        out.putAll(labels);
        return out;
    }
}
