package com.bettercompute.application.event;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.input.Input;

import java.util.List;

/**
 * {@code GET /api/events}: the outbox in order. An operator reads every tenant's events (or one
 * tenant's); anyone else names a tenant it may read ({@code compute:kubernetes:read} on it).
 */
public final class ReadEvents {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    private final EventOutbox outbox;
    private final Authorizer authorizer;

    public ReadEvents(EventOutbox outbox, Authorizer authorizer) {
        this.outbox = outbox;
        this.authorizer = authorizer;
    }

    public List<StoredEvent> read(Caller caller, long after, int limit, String tenantId) {
        if (after < 0) {
            throw Input.invalid("after", "must be 0 or more");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Input.invalid("limit", "must be between 1 and " + MAX_LIMIT);
        }
        if (!caller.operator()) {
            if (tenantId == null) {
                throw new DomainException(ErrorCode.ACCESS_DENIED,
                        "Only an operator reads every tenant's events; name your tenant with tenantId.");
            }
            authorizer.require(caller, Action.READ, Resource.tenant(tenantId));
        }
        return outbox.read(after, limit, tenantId);
    }
}
