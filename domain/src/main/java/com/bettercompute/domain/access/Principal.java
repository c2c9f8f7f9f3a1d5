package com.bettercompute.domain.access;

/** An identity that calls the API ({@code user:alice@example.com}, {@code service:ci-bot}). */
public record Principal(String id, boolean operator) {}
