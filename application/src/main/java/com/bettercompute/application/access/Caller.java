package com.bettercompute.application.access;

import com.bettercompute.domain.access.Principal;

/** The authenticated principal a call is made by. */
public record Caller(Principal principal) {
    public String id() {
        return principal.id();
    }

    public boolean operator() {
        return principal.operator();
    }
}
