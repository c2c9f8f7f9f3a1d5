package com.bettercompute.application.fakes;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;

import java.util.List;
import java.util.Objects;

/** {@link EventOutbox} on an {@link InMemoryStore}: sequences start at 1; a rolled-back append leaves nothing. */
public final class InMemoryEventOutbox implements EventOutbox {
    private final InMemoryStore store;

    public InMemoryEventOutbox(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public void append(DomainEvent event) {
        store.lockedRun(s -> s.events.add(new StoredEvent(++s.lastSequence, event)));
    }

    @Override
    public List<StoredEvent> read(long after, int limit, String tenantId) {
        return store.locked(s -> s.events.stream()
                .filter(e -> e.sequence() > after)
                .filter(e -> tenantId == null || Objects.equals(tenantId, e.event().tenantId()))
                .limit(Math.max(0, limit))
                .toList());
    }

    /** Every event appended and committed so far, oldest first; for assertions. */
    public List<StoredEvent> all() {
        return store.locked(s -> List.copyOf(s.events));
    }
}
