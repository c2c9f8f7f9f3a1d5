package com.bettercompute.application.access;

import com.bettercompute.domain.access.Principal;

/**
 * The authenticated principal a call is made by. {@code viaSession}: the call comes from a person signed in
 * to the console (a session cookie), not from an API token sent by automation; the spec keeps irreversible
 * actions for such calls.
 */
public record Caller(Principal principal, boolean viaSession) {
    /** A call made with an API token. */
    public Caller(Principal principal) {
        this(principal, false);
    }

    public String id() {
        return principal.id();
    }

    public boolean operator() {
        return principal.operator();
    }
}
