package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Caller;
import io.javalin.http.Context;

/** The caller of a request, from its {@code Authorization: Bearer <token>} header; the token is never logged. */
final class Authentication {
    static final String CALLER = "bc.caller";

    private final Authenticate authenticate;
    private final RequestLimits limits;

    /** {@code limits}: the caller's share of the server, checked right after it is known and before its body is read. */
    Authentication(Authenticate authenticate, RequestLimits limits) {
        this.authenticate = authenticate;
        this.limits = limits;
    }

    /** The caller; {@code UNAUTHENTICATED} without a known token. Notes the caller's id for the access log. */
    Caller caller(Context ctx) {
        Caller caller = authenticate.byToken(bearer(ctx.header("Authorization")));
        ctx.attribute(CALLER, caller.id());
        limits.admit(ctx, caller.id());
        return caller;
    }

    /** The caller of a token sent in a form field (the approval page's), checked and noted as {@link #caller} does. */
    Caller callerWithToken(Context ctx, String token) {
        Caller caller = authenticate.byToken(token == null ? null : token.trim());
        ctx.attribute(CALLER, caller.id());
        limits.admit(ctx, caller.id());
        return caller;
    }

    /** The bearer token of the header, or null. */
    static String bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return header.substring(7).trim();
    }
}
