package com.bettercompute.application.event;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.input.Input;

import java.util.List;
import java.util.function.Predicate;

/**
 * {@code GET /api/events}: the outbox in order. An operator reads every tenant's events (or one
 * tenant's); anyone else names a tenant it may read ({@code compute:kubernetes:read} on it) and sees
 * the events of the clusters it may read, each decided as {@code get} decides the cluster.
 */
public final class ReadEvents {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    private final EventOutbox outbox;
    private final ReadableClusters readable;

    public ReadEvents(EventOutbox outbox, ReadableClusters readable) {
        this.outbox = outbox;
        this.readable = readable;
    }

    /**
     * A page of events: those the caller may read, and {@code next}, the sequence to ask after for the next
     * page — past the events it may not read too, so paging never stalls on them.
     */
    public record Page(List<StoredEvent> items, long next) {
        public Page {
            items = List.copyOf(items);
        }
    }

    public Page read(Caller caller, long after, int limit, String tenantId) {
        if (after < 0) {
            throw Input.invalid("after", "must be 0 or more");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Input.invalid("limit", "must be between 1 and " + MAX_LIMIT);
        }
        Predicate<String> mayRead = id -> true;
        if (!caller.operator()) {
            if (tenantId == null) {
                throw new DomainException(ErrorCode.ACCESS_DENIED,
                        "Only an operator reads every tenant's events; name your tenant with tenantId.");
            }
            mayRead = readable.of(caller, tenantId);
        }
        List<StoredEvent> events = outbox.read(after, limit, tenantId);
        long next = events.isEmpty() ? after : events.get(events.size() - 1).sequence();
        Predicate<String> allowed = mayRead;
        return new Page(events.stream().filter(e -> {
            String clusterId = clusterOf(e.event());
            return clusterId == null || allowed.test(clusterId);
        }).toList(), next);
    }

    /** The cluster an event is about: named in its data (node pool events), or its subject (cluster events). */
    static String clusterOf(DomainEvent event) {
        if (event.data().get("clusterId") instanceof String id) {
            return id;
        }
        return event.subjectId() != null && event.subjectId().startsWith("kcl_") ? event.subjectId() : null;
    }
}
