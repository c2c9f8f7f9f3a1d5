package com.bettercompute.domain.event;

/** An event read back from the outbox, with its place in the global order. */
public record StoredEvent(long sequence, DomainEvent event) {}
