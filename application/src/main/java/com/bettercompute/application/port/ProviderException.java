package com.bettercompute.application.port;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.util.Map;
import java.util.Objects;

/**
 * A provider refused or failed a call. It is the only exception a {@link ClusterProvider} throws;
 * no library type travels with it. The message is the provider's, for a person (it becomes the
 * cluster's {@code message} when the reconciler shows the error) and carries no secret.
 */
public final class ProviderException extends RuntimeException {

    /** What kind of failure, so a caller can decide to retry, give up or show an error. */
    public enum Kind {
        /** The cluster, node pool or location does not exist. */
        NOT_FOUND,
        /** Something of that name exists already (and was not adopted). */
        ALREADY_EXISTS,
        /** The provider refuses the request as it is: a version it does not offer, a downgrade, a bad field. Retrying the same call fails again. */
        INVALID,
        /** The resource is not in a state that allows the call, typically another operation is running: retry later. */
        FAILED_PRECONDITION,
        /** A quota of the provider account is exhausted. */
        QUOTA,
        /** Our credentials may not do this. */
        PERMISSION_DENIED,
        /** The provider could not be reached or answered with a transient error: retry later. */
        UNAVAILABLE,
        /** A cluster of our provider-side name exists but does not carry our label: it is not ours, and is never adopted or changed. */
        FOREIGN,
        /**
         * The provider refuses to create the cluster with Identity Service for GKE on (an organization GKE does not offer
         * it to, or a mode that has none): the same request without it may succeed. Only a create that asked for it.
         */
        IDENTITY_SERVICE_REFUSED,
        /** Anything else. */
        INTERNAL
    }

    private final Kind kind;

    public ProviderException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public ProviderException(Kind kind, String message) {
        this(kind, message, null);
    }

    public Kind kind() {
        return kind;
    }

    /** Worth trying the same call again later. */
    public boolean retryable() {
        return kind == Kind.FAILED_PRECONDITION || kind == Kind.UNAVAILABLE || kind == Kind.INTERNAL || kind == Kind.QUOTA;
    }

    /**
     * The failure as the API shows it when a call (such as {@code versions}) reaches the provider
     * synchronously: the provider's message, its kind in {@code details.providerError}. A provider
     * that refuses our credentials or is down is the operator's problem, not the caller's: INTERNAL.
     */
    public DomainException toDomainException() {
        ErrorCode code = switch (kind) {
            case NOT_FOUND -> ErrorCode.NOT_FOUND;
            case ALREADY_EXISTS, FOREIGN -> ErrorCode.CONFLICT;
            case INVALID -> ErrorCode.INVALID_INPUT;
            case FAILED_PRECONDITION, IDENTITY_SERVICE_REFUSED -> ErrorCode.INVALID_STATE;
            case QUOTA -> ErrorCode.QUOTA_EXCEEDED;
            case PERMISSION_DENIED, UNAVAILABLE, INTERNAL -> ErrorCode.INTERNAL;
        };
        return new DomainException(code, getMessage(), Map.of("providerError", kind.name()));
    }
}
