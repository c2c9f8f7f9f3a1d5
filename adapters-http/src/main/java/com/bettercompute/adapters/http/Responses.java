package com.bettercompute.adapters.http;

import io.javalin.http.Context;

/** Writes every answer of the API: JSON, with its status. */
final class Responses {
    private Responses() {}

    static void json(Context ctx, int status, Object body) {
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }
}
