package com.bettercompute.application.port;

import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;

import java.util.List;

/**
 * Domain events, written in the same transaction as the change they describe, and read back in order.
 * A refused call rolls back and so publishes nothing.
 */
public interface EventOutbox {

    void append(DomainEvent event);

    /** Appends the events in order, as {@link #append} each; an adapter may send them at once. */
    default void appendAll(List<DomainEvent> events) {
        events.forEach(this::append);
    }

    /**
     * Events with a sequence above {@code after}, in order, at most {@code limit}; only the tenant's
     * when {@code tenantId} is not null.
     */
    List<StoredEvent> read(long after, int limit, String tenantId);
}
