package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

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
        withBody(HandlerType.POST, path, summary, body, answer, call);
    }

    /** {@code PUT path}, as {@link #post}. */
    <C, R extends Request<C>, O> void put(String path, String summary, Class<R> body, Class<O> answer,
                                          BiFunction<Caller, C, ? extends O> call) {
        withBody(HandlerType.PUT, path, summary, body, answer, call);
    }

    private <C, R extends Request<C>, O> void withBody(HandlerType method, String path, String summary, Class<R> body,
                                                       Class<O> answer, BiFunction<Caller, C, ? extends O> call) {
        table.add(new Route(method.name().toLowerCase(java.util.Locale.ROOT), path, summary, body, List.of(), answer));
        routes.addHttpHandler(method, path, ctx -> {
            Caller caller = authentication.caller(ctx);
            C command = Json.command(ctx.bodyAsBytes(), body);
            O result = call.apply(caller, command);
            OperatorRoutes.accepted(command);
            Responses.json(ctx, 200, result);
        });
    }

    /** {@code GET path} with the query parameters named (each read strictly by {@link QueryString}). */
    <O> void get(String path, String summary, List<String> query, Class<O> answer, Query<? extends O> call) {
        withQuery(HandlerType.GET, path, summary, query, answer, call, null);
    }

    /** {@code DELETE path} with the query parameters named, as {@link #get}. */
    <O> void delete(String path, String summary, List<String> query, Class<O> answer, Query<? extends O> call) {
        withQuery(HandlerType.DELETE, path, summary, query, answer, call, null);
    }

    /**
     * {@code GET path} as {@link #get}, answered instead by {@code stream} when the caller accepts
     * {@code text/event-stream} (server-sent events).
     */
    <O> void getOrStream(String path, String summary, List<String> query, Class<O> answer, Query<? extends O> call,
                         Stream stream) {
        withQuery(HandlerType.GET, path, summary, query, answer, call, stream);
    }

    /** Serves a route as server-sent events, once the caller and the query are checked. */
    @FunctionalInterface
    interface Stream {
        void serve(Caller caller, Context ctx) throws Exception;
    }

    private <O> void withQuery(HandlerType method, String path, String summary, List<String> query, Class<O> answer,
                               Query<? extends O> call, Stream stream) {
        table.add(new Route(method.name().toLowerCase(java.util.Locale.ROOT), path, summary, null, query, answer));
        java.util.Set<String> known = java.util.Set.copyOf(query);
        routes.addHttpHandler(method, path, ctx -> {
            Caller caller = authentication.caller(ctx);
            QueryString.check(ctx.queryString(), known);
            String accept = ctx.header("Accept");
            if (stream != null && accept != null && accept.contains("text/event-stream")) {
                stream.serve(caller, ctx);
                return;
            }
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
