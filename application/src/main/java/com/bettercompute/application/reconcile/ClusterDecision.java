package com.bettercompute.application.reconcile;

import com.bettercompute.domain.cluster.Cluster;

import java.time.Duration;
import java.util.List;

/**
 * What a reconcile pass decided: the cluster to save ({@code next}, with the intent of {@code action}
 * recorded), the one provider call to make, the events its change publishes, and when to look again
 * ({@code requeue} null: never — the cluster is deleted).
 */
public record ClusterDecision(Cluster next, ProviderAction action, List<String> events, Duration requeue) {
    public ClusterDecision {
        events = List.copyOf(events);
    }

    public boolean acts() {
        return !(action instanceof ProviderAction.None);
    }
}
