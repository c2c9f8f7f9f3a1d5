package com.bettercompute.domain.event;

import java.time.Instant;
import java.util.Map;

/**
 * A domain event as it goes to the outbox: its wire type (the spec's name, such as
 * {@code kubernetes.cluster.created}), the tenant it belongs to, the resource it is about, when it
 * happened, and its data (plain JDK values; never a secret).
 */
public record DomainEvent(String type, String tenantId, String subjectId, Instant occurredAt, Map<String, Object> data) {
    public DomainEvent {
        data = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(data));
    }
}
