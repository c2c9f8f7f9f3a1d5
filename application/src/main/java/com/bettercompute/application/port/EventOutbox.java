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
     * An event to append, with its stored form made ahead ({@link #prepare}): in the caller's thread, so that a group's
     * writer, which writes one group at a time, only sends it.
     */
    interface PreparedEvent {
        DomainEvent event();
    }

    /** The event ready for {@link #appendAllPrepared}; by default the event as it is. */
    default PreparedEvent prepare(DomainEvent event) {
        return () -> event;
    }

    /** {@link #appendAll} of events this outbox prepared ({@link #prepare}). */
    default void appendAllPrepared(List<? extends PreparedEvent> events) {
        appendAll(events.stream().map(PreparedEvent::event).toList());
    }

    /**
     * Events with a sequence above {@code after}, in order, at most {@code limit}; only the tenant's
     * when {@code tenantId} is not null.
     */
    List<StoredEvent> read(long after, int limit, String tenantId);
}
