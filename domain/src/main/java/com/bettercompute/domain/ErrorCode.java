package com.bettercompute.domain;

/** The error codes of the API. Each maps to one HTTP status in the HTTP adapter, nowhere else. */
public enum ErrorCode {
    /** The input breaks a constraint of the method's table, or has an unknown field. */
    INVALID_INPUT,
    /** No credential, or one that names no principal. */
    UNAUTHENTICATED,
    /** The authorization decision refused the call. */
    ACCESS_DENIED,
    /** The resource does not exist, or is not visible to the caller's tenant. */
    NOT_FOUND,
    /** The call collides with existing state: a taken name, an idempotency key reused with other input. */
    CONFLICT,
    /** The resource is not in a state that allows the call. */
    INVALID_STATE,
    /** The call is well formed but asks for something this resource or provider does not offer. */
    UNSUPPORTED,
    /** A quota or budget is exhausted. */
    QUOTA_EXCEEDED,
    /** Something failed that no input should cause: a bug or an outage. */
    INTERNAL
}
