package com.bettercompute.application.signin;

import java.util.Set;

/**
 * A refusal of the OAuth 2.0 endpoints, in the words RFC 6749 (section 5.2) and RFC 8628 (section 3.5)
 * give it: the HTTP adapter answers it as {@code {"error", "error_description"}}, not in the API's own
 * error shape, because the plugin (and any OAuth client) reads these words.
 */
public final class OAuthRefusal extends RuntimeException {
    static final Set<String> ERRORS = Set.of("invalid_request", "invalid_client", "invalid_grant", "unsupported_grant_type",
            "authorization_pending", "slow_down", "access_denied", "expired_token");

    private final String error;

    public OAuthRefusal(String error, String description) {
        super(description, null, false, false);
        if (!ERRORS.contains(error)) {
            throw new IllegalArgumentException("not an OAuth error: " + error);
        }
        this.error = error;
    }

    public String error() {
        return error;
    }

    /** The answer's status: 401 for an unknown client (RFC 6749), 400 for every other refusal. */
    public int status() {
        return error.equals("invalid_client") ? 401 : 400;
    }
}
