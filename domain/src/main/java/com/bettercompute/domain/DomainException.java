package com.bettercompute.domain;

import java.util.Map;
import java.util.Objects;

/**
 * The one exception of the product. Adapters translate library errors into it at their boundary;
 * the HTTP adapter maps its code to a status. The message is for a person and never carries a
 * secret; {@code details} is machine-readable and goes to the caller as it is.
 */
public final class DomainException extends RuntimeException {
    private final ErrorCode code;
    private final Map<String, Object> details;

    public DomainException(ErrorCode code, String message, Map<String, Object> details) {
        super(message);
        this.code = Objects.requireNonNull(code);
        this.details = details == null ? Map.of() : Map.copyOf(details);
    }

    public DomainException(ErrorCode code, String message) {
        this(code, message, Map.of());
    }

    public ErrorCode code() {
        return code;
    }

    public Map<String, Object> details() {
        return details;
    }
}
