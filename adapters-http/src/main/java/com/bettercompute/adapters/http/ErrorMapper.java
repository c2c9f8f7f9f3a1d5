package com.bettercompute.adapters.http;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.util.EnumMap;
import java.util.Map;

/** The one place that maps error codes to HTTP statuses and writes the error body of {@code API.md}. */
final class ErrorMapper {
    private static final Map<ErrorCode, Integer> STATUS = new EnumMap<>(ErrorCode.class);

    static {
        STATUS.put(ErrorCode.INVALID_INPUT, 400);
        STATUS.put(ErrorCode.UNAUTHENTICATED, 401);
        STATUS.put(ErrorCode.ACCESS_DENIED, 403);
        STATUS.put(ErrorCode.NOT_FOUND, 404);
        STATUS.put(ErrorCode.CONFLICT, 409);
        STATUS.put(ErrorCode.INVALID_STATE, 409);
        STATUS.put(ErrorCode.UNSUPPORTED, 422);
        STATUS.put(ErrorCode.QUOTA_EXCEEDED, 429);
        STATUS.put(ErrorCode.INTERNAL, 500);
    }

    /** {@code {"error": {"code", "message", "details"}}}: the body of every refusal. */
    record ErrorBody(Error error) {}

    /** {@code details} of {@code INVALID_INPUT} is {@code {"fields": [{"field", "problem"}]}}; other codes add their own keys. */
    record Error(String code, String message, Map<String, Object> details) {}

    private ErrorMapper() {}

    static int status(ErrorCode code) {
        return STATUS.get(code);
    }

    static ErrorBody body(DomainException e) {
        return body(e.code(), e.getMessage(), e.details());
    }

    static ErrorBody body(ErrorCode code, String message, Map<String, Object> details) {
        return body(code.name(), message, details);
    }

    /** The body of a code of {@link ErrorCode} or {@link HttpRefusal}. */
    static ErrorBody body(String code, String message, Map<String, Object> details) {
        return new ErrorBody(new Error(code, message, details));
    }
}
