package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Installs the API's routes on Javalin and keeps the table of them that the OpenAPI document is written
 * from, so the document names exactly the routes served, with the record types their bodies are bound into
 * and their answers written from.
 */
final class Router {
    /** One served route as the OpenAPI document describes it. */
    record Route(String httpMethod, String path, String summary, Class<?> body, List<String> query, Class<?> answer) {
        Route {
            query = List.copyOf(query);
        }
    }

    /** Serves a GET route: checks the caller and the query, answers the record. */
    @FunctionalInterface
    interface Query<O> {
        O answer(Caller caller, Context ctx);
    }

    private final RoutesConfig routes;
    private final Authentication authentication;
    private final List<Route> table = new ArrayList<>();

    Router(RoutesConfig routes, Authentication authentication) {
        this.routes = routes;
        this.authentication = authentication;
    }

    /** {@code POST path}: authenticates, binds the body into {@code body} and hands its command to {@code call}. */
    <C, R extends Request<C>, O> void post(String path, String summary, Class<R> body, Class<O> answer,
                                           BiFunction<Caller, C, ? extends O> call) {
        table.add(new Route("post", path, summary, body, List.of(), answer));
        routes.post(path, ctx -> {
            Caller caller = authentication.caller(ctx);
            C command = Json.command(ctx.bodyAsBytes(), body);
            O result = call.apply(caller, command);
            OperatorRoutes.accepted(command);
            Responses.json(ctx, 200, result);
        });
    }

    /** {@code GET path} with the query parameters named (each read strictly by {@link QueryString}). */
    <O> void get(String path, String summary, List<String> query, Class<O> answer, Query<? extends O> call) {
        table.add(new Route("get", path, summary, null, query, answer));
        java.util.Set<String> known = java.util.Set.copyOf(query);
        routes.get(path, ctx -> {
            Caller caller = authentication.caller(ctx);
            QueryString.check(ctx.queryString(), known);
            Responses.json(ctx, 200, call.answer(caller, ctx));
        });
    }

    /** A route outside the API's JSON calls (the OpenAPI document itself), listed in no table. */
    void raw(String path, io.javalin.http.Handler handler) {
        routes.get(path, handler);
    }

    List<Route> table() {
        return List.copyOf(table);
    }
}
